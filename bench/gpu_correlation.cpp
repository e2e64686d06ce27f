// The end-of-run cost of GPU attribution (runtime/perfrt_gpu_correlate.h),
// which runs while the trace is written: a synthetic run of N launches from
// 4 threads, each launch inside one instrumented call nested 3 deep, each
// launching one kernel, correlated and placed on rows. Reports records per
// second. Google Benchmark, label `bench`.
#include "perfrt_gpu_correlate.h"

#include <benchmark/benchmark.h>

#include <vector>

using namespace perfrt;

namespace {

struct SyntheticRun {
  GpuData data;
  struct Span {
    uint32_t tid;
    uint64_t start, end;
    uint32_t fn;
  };
  std::vector<Span> spans; // per thread in completion order, interleaved
};

SyntheticRun makeRun(uint32_t launches) {
  SyntheticRun r;
  r.data.intern("");
  uint32_t name = r.data.intern("cudaLaunchKernel");
  uint32_t kernel = r.data.intern("_Z6kernelPfi");
  const uint32_t threads = 4;
  for (uint32_t i = 0; i < launches; ++i) {
    uint32_t tid = 100 + i % threads;
    uint64_t t = 1000 + uint64_t(i / threads) * 10000;
    perfrt_gpu_api a{};
    a.start = t + 3000, a.end = t + 5000, a.correlation = i + 1, a.tid = tid;
    a.name = name;
    r.data.apis.push_back(a);
    perfrt_gpu_work w{};
    w.kind = PERFRT_GPU_KERNEL, w.correlation = i + 1, w.stream = 7 + i % 2;
    w.start = t + 6000,
    w.end = t + 6000 + 4000 * (i % threads) / threads + 1500;
    w.name = kernel;
    r.data.work.push_back(w);
    // Three nested calls around the launch, completing innermost first.
    r.spans.push_back({tid, t + 2000, t + 6000, 3});
    r.spans.push_back({tid, t + 1000, t + 7000, 2});
    r.spans.push_back({tid, t, t + 8000, 1});
  }
  return r;
}

void BM_CorrelateRun(benchmark::State &state) {
  SyntheticRun run = makeRun(uint32_t(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    GpuData copy = run.data;
    state.ResumeTiming();
    GpuCorrelation c(std::move(copy), 0, ~0ull);
    uint64_t ids = 0;
    for (const SyntheticRun::Span &s : run.spans)
      ids += c.onSpan(s.tid, s.start, s.end, s.fn);
    c.finish();
    benchmark::DoNotOptimize(ids);
  }
  // API calls and kernels, each once.
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0) * 2);
}
BENCHMARK(BM_CorrelateRun)
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
