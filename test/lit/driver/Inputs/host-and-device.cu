// Host functions and a kernel in one .cu file: with `nvcc -ccbin perfcc++`
// the host functions get probes; the kernel (device code) never does.
#include <cstdio>

__global__ void fill(int *p) { *p = 1; }

namespace host_side {
__attribute__((noinline)) int run() {
  int *d = nullptr;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess)
    return 77; // no GPU here: the host side still ran, and was recorded
  fill<<<1, 1>>>(d);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
} // namespace host_side

int main() {
  int rc = host_side::run();
  std::printf("rc=%d\n", rc);
  return rc;
}
