// Cost of one call to an empty function, plain and instrumented, against the
// cost of the clock the probes read. Built with perfcc (probe_overhead.targets
// gives probes to bench::instrumented only) and run by run_probe_overhead.sh
// three times: probes disabled at run time, PERFCC_MODE=summary and
// PERFCC_MODE=trace. Each run also measures the plain call and two raw clock
// reads, so the figures are compared as ratios within one run.
#include <benchmark/benchmark.h>

#include <ctime>
#include <mutex>
#include <x86intrin.h>

namespace bench {

__attribute__((noinline)) void plain(int *sink) {
  benchmark::DoNotOptimize(sink);
}
__attribute__((noinline)) void instrumented(int *sink) {
  benchmark::DoNotOptimize(sink);
}

} // namespace bench

static void BM_PlainCall(benchmark::State &state) {
  int sink = 0;
  for (auto _ : state)
    bench::plain(&sink);
}
BENCHMARK(BM_PlainCall);

static void BM_InstrumentedCall(benchmark::State &state) {
  int sink = 0;
  for (auto _ : state)
    bench::instrumented(&sink);
}
BENCHMARK(BM_InstrumentedCall);

// The same calls, each followed by an uncontended mutex lock and unlock, as
// real code does between calls: a locked instruction waits for every store
// the probes left in flight (non-temporal span stores once cost 450 ns more
// a call here; docs/benchmarks.md, "Probes beside locks"). Google
// Benchmark's own threads make the process multi-threaded, so glibc's
// mutex is the atomic one.
static std::mutex besideMutex;

static void BM_PlainCallBesideMutex(benchmark::State &state) {
  int sink = 0;
  for (auto _ : state) {
    bench::plain(&sink);
    std::lock_guard<std::mutex> hold(besideMutex);
  }
}
BENCHMARK(BM_PlainCallBesideMutex);

static void BM_InstrumentedCallBesideMutex(benchmark::State &state) {
  int sink = 0;
  for (auto _ : state) {
    bench::instrumented(&sink);
    std::lock_guard<std::mutex> hold(besideMutex);
  }
}
BENCHMARK(BM_InstrumentedCallBesideMutex);

// The floor of an enter/exit pair: two timestamps.
static void BM_TwoRdtsc(benchmark::State &state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(__rdtsc());
    benchmark::DoNotOptimize(__rdtsc());
  }
}
BENCHMARK(BM_TwoRdtsc);

static void BM_TwoClockGettime(benchmark::State &state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_TwoClockGettime);

BENCHMARK_MAIN();
