//===- stalls.cpp - a CUDA program whose GPU idle time has a known cause --===//
//
// Host code built by perfcc (kernels in kernels.cu, built by nvcc). Each
// iteration of the main loop:
//  - launch_step() launches a 2 ms kernel on stream A and a scale kernel on
//    stream B, after copying a buffer in;
//  - hidden_work() spins 1 ms on the host while that kernel runs: it costs
//    the GPU nothing, so nothing may be charged to it;
//  - wait_for_gpu() synchronizes both streams;
//  - prepare_batch() spins 500 us on the host with the GPU idle: the GPU
//    waits for it, so about 500 us per iteration must be charged to it.
// Then replay_graph() runs a CUDA graph that capture_graph() captured (three
// kernels from one launch). Each iteration is a unit of progress
// ("iterations"), so perfctl sweep can ask which host function the
// throughput depends on: prepare_batch, serial with the GPU, is on the
// critical path; hidden_work, with about 1 ms of slack behind the kernel,
// is not. Usage: cuda_stalls [ITERATIONS [PREPARE_US [HIDDEN_US]]]
// (defaults 50, 500, 1000: the variants doing less work are the sweep's
// ground truth); exits 77 with one line when there is no CUDA device (the
// `gpu` tests read it as a skip).
//
//   perfcc++ -O2 stalls.cpp kernels.o -lcudart -o cuda_stalls
//   ./cuda_stalls && perfctl report perfcc-out/cuda_stalls.*.trace.json
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include <perf/perf.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr unsigned long long KernelNs = 2000000; // 2 ms on the GPU
std::chrono::microseconds HiddenWork(1000);
std::chrono::microseconds StallWork(500);
constexpr int Elements = 1 << 20;

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_stalls: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void spinFor(std::chrono::microseconds d) {
  auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
  }
}

struct Buffers {
  cudaStream_t a, b;
  float *busyOut, *data, *host;
  cudaGraphExec_t graph;
};

} // namespace

namespace cuda_example {

__attribute__((noinline)) void upload(Buffers &s) {
  check(cudaMemcpyAsync(s.data, s.host, Elements * sizeof(float),
                        cudaMemcpyHostToDevice, s.b),
        "cudaMemcpyAsync");
}

__attribute__((noinline)) void launch_step(Buffers &s) {
  upload(s);
  check(cudaError_t(launch_busy(s.busyOut, KernelNs, s.a)), "launch_busy");
  check(cudaError_t(launch_scale(s.data, Elements, 1.0001f, s.b)),
        "launch_scale");
}

__attribute__((noinline)) void hidden_work() { spinFor(HiddenWork); }

__attribute__((noinline)) void wait_for_gpu(Buffers &s) {
  check(cudaStreamSynchronize(s.a), "cudaStreamSynchronize");
  check(cudaStreamSynchronize(s.b), "cudaStreamSynchronize");
}

__attribute__((noinline)) void prepare_batch() { spinFor(StallWork); }

__attribute__((noinline)) void capture_graph(Buffers &s) {
  cudaGraph_t g;
  check(cudaStreamBeginCapture(s.b, cudaStreamCaptureModeGlobal),
        "cudaStreamBeginCapture");
  for (int i = 0; i < 3; ++i)
    check(cudaError_t(launch_scale(s.data, Elements, 0.999f, s.b)),
          "launch_scale (captured)");
  check(cudaStreamEndCapture(s.b, &g), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&s.graph, g, 0), "cudaGraphInstantiate");
  check(cudaGraphDestroy(g), "cudaGraphDestroy");
}

__attribute__((noinline)) void replay_graph(Buffers &s) {
  check(cudaGraphLaunch(s.graph, s.b), "cudaGraphLaunch");
  check(cudaStreamSynchronize(s.b), "cudaStreamSynchronize");
}

} // namespace cuda_example

namespace {
/// argv[i] as a non-negative integer, \p fallback when absent; anything
/// else is the usage line and exit status 2.
long argument(int argc, char **argv, int i, long fallback) {
  if (i >= argc)
    return fallback;
  char *end = nullptr;
  long value = std::strtol(argv[i], &end, 10);
  if (argc > 4 || end == argv[i] || *end || value < 0) {
    std::fprintf(stderr, "usage: cuda_stalls [ITERATIONS [PREPARE_US "
                         "[HIDDEN_US]]] (non-negative integers)\n");
    std::exit(2);
  }
  return value;
}
} // namespace

int main(int argc, char **argv) {
  int iterations = int(argument(argc, argv, 1, 50));
  StallWork = std::chrono::microseconds(argument(argc, argv, 2, 500));
  HiddenWork = std::chrono::microseconds(argument(argc, argv, 3, 1000));
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuda_stalls: no CUDA device\n");
    return 77;
  }
  Buffers s{};
  check(cudaStreamCreateWithFlags(&s.a, cudaStreamNonBlocking), "stream a");
  check(cudaStreamCreateWithFlags(&s.b, cudaStreamNonBlocking), "stream b");
  check(cudaMalloc(&s.busyOut, 64 * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&s.data, Elements * sizeof(float)), "cudaMalloc");
  check(cudaMallocHost(&s.host, Elements * sizeof(float)), "cudaMallocHost");
  check(cudaMemset(s.data, 0, Elements * sizeof(float)), "cudaMemset");
  cuda_example::capture_graph(s);
  for (int i = 0; i < iterations; ++i) {
    cuda_example::launch_step(s);
    cuda_example::hidden_work();
    cuda_example::wait_for_gpu(s);
    cuda_example::prepare_batch();
    PERF_PROGRESS("iterations");
  }
  cuda_example::replay_graph(s);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::printf("cuda_stalls: %d iterations\n", iterations);
  return 0;
}
