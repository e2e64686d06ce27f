// engine/cuda/gemv_kernels.cu - the projections of a decode step with a few
// sequences: y = x·wᵀ for up to 4 rows of x, one warp per output row.
//
// At batch 1 to 4 a projection is a matrix-vector product bound by reading
// the weights once; cuBLAS's GEMM kernels reached about a fifth of the
// H200's bandwidth there (gate/up, 12.6 MB, 12.4 µs), so these small cases
// get a kernel that streams each weight row with 16-byte loads, several in
// flight per lane, against x staged in shared memory.
#include "engine/cuda/gemv.h"

#include <cuda_bf16.h>

#include <cstdint>

namespace engine::cuda {

namespace {
constexpr int kWarps = 4;
constexpr int kMaxSharedBytes = 48 << 10;

__device__ __forceinline__ float dot8(uint4 a, uint4 b) {
  const uint32_t wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
  float s = 0.f;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    s += __uint_as_float(wa[e] << 16) * __uint_as_float(wb[e] << 16);
    s += __uint_as_float(wa[e] & 0xffff0000u) *
         __uint_as_float(wb[e] & 0xffff0000u);
  }
  return s;
}

template <int N, bool F32>
__global__ void __launch_bounds__(kWarps * 32)
    gemv_kernel(const uint16_t *w, int rows, int cols, const uint16_t *x,
                void *y) {
  extern __shared__ uint4 xs[]; // [N][cols / 8]
  const int chunks = cols / 8;
  for (int i = threadIdx.x; i < N * chunks; i += blockDim.x)
    xs[i] = reinterpret_cast<const uint4 *>(x)[i];
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = blockIdx.x * kWarps + warp;
  if (r >= rows)
    return;
  const uint4 *wr = reinterpret_cast<const uint4 *>(w + int64_t(r) * cols);
  float acc[N];
#pragma unroll
  for (int n = 0; n < N; ++n)
    acc[n] = 0.f;
#pragma unroll 4
  for (int c = lane; c < chunks; c += 32) {
    const uint4 wv = __ldcs(wr + c); // read once per step: don't keep it
#pragma unroll
    for (int n = 0; n < N; ++n)
      acc[n] += dot8(wv, xs[n * chunks + c]);
  }
#pragma unroll
  for (int n = 0; n < N; ++n) {
    float v = acc[n];
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) {
      if (F32)
        static_cast<float *>(y)[int64_t(n) * rows + r] = v;
      else
        static_cast<uint16_t *>(y)[int64_t(n) * rows + r] =
            __bfloat16_as_ushort(__float2bfloat16_rn(v));
    }
  }
}

template <int N>
void launch(const uint16_t *w, int rows, int cols, const uint16_t *x, void *y,
            bool y_f32, cudaStream_t stream) {
  const dim3 grid((rows + kWarps - 1) / kWarps);
  const size_t shared = size_t(N) * cols * 2;
  if (y_f32)
    gemv_kernel<N, true>
        <<<grid, kWarps * 32, shared, stream>>>(w, rows, cols, x, y);
  else
    gemv_kernel<N, false>
        <<<grid, kWarps * 32, shared, stream>>>(w, rows, cols, x, y);
}
} // namespace

bool gemv_supports(int n, int cols) {
  return n >= 1 && n <= kMaxGemvRows && cols % 8 == 0 &&
         int64_t(n) * cols * 2 <= kMaxSharedBytes;
}

void launch_gemv(const uint16_t *w, int rows, int cols, const uint16_t *x,
                 int n, void *y, bool y_f32, cudaStream_t stream) {
  switch (n) {
  case 1:
    return launch<1>(w, rows, cols, x, y, y_f32, stream);
  case 2:
    return launch<2>(w, rows, cols, x, y, y_f32, stream);
  case 3:
    return launch<3>(w, rows, cols, x, y, y_f32, stream);
  case 4:
    return launch<4>(w, rows, cols, x, y, y_f32, stream);
  }
}

} // namespace engine::cuda
