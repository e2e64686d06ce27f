// Host cost per kernel launch under perfcc (Google Benchmark, label `bench`
// and `gpu`): a launch-bound loop, each launch made from an instrumented
// function as an engine's would be. run_launch_overhead.sh runs it three
// ways in one go (probes off and CUPTI off; probes on, CUPTI off; probes on,
// CUPTI on) and prints the ratios: what the probes add per launch, and what
// CUPTI's activity records add. Exits 77 where there is no GPU.
#include "empty_kernel.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

namespace launch_bench {

/// One launch, from an instrumented function (its probes run per launch).
__attribute__((noinline)) void launch_one(cudaStream_t stream) {
  if (launch_empty(stream) != 0)
    std::abort();
}

} // namespace launch_bench

namespace {

cudaStream_t gStream;

void BM_LaunchEmptyKernel(benchmark::State &state) {
  for (auto _ : state) {
    launch_bench::launch_one(gStream);
    // Keep the queue short, so the loop measures launches, not a full
    // queue's back-pressure.
    if (state.iterations() % 256 == 255)
      cudaStreamSynchronize(gStream);
  }
  cudaStreamSynchronize(gStream);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LaunchEmptyKernel)
    ->MinTime(2.0)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

} // namespace

int main(int argc, char **argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "launch_overhead: no CUDA device\n");
    return 77;
  }
  cudaStreamCreateWithFlags(&gStream, cudaStreamNonBlocking);
  launch_bench::launch_one(gStream); // first launch loads the module
  cudaStreamSynchronize(gStream);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
