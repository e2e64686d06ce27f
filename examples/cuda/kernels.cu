// The example's device code, compiled by nvcc (sm_90 and PTX for other
// GPUs). Each kernel sits behind a plain C++ launch function, so the host
// code that calls them is ordinary C++ that perfcc builds and probes.
#include "kernels.h"

#include <cuda_runtime.h>

namespace {

/// Keeps one block busy for about \p ns of GPU time (globaltimer is ns).
__global__ void busy_kernel(float *out, unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (threadIdx.x == 0)
    out[blockIdx.x] = float(now - start);
}

__global__ void scale_kernel(float *data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

} // namespace

int launch_busy(float *out, unsigned long long ns, cudaStream_t stream) {
  busy_kernel<<<1, 32, 0, stream>>>(out, ns);
  return int(cudaGetLastError());
}

int launch_scale(float *data, int n, float factor, cudaStream_t stream) {
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(data, n, factor);
  return int(cudaGetLastError());
}
