// engine/cuda/gemv_kernels.cu - the projections of a decode step with a few
// sequences: y = x·wᵀ for up to 4 rows of x, one warp per output row.
//
// At batch 1 to 4 a projection is a matrix-vector product bound by reading
// the weights once; cuBLAS's GEMM kernels reached about a fifth of the
// H200's bandwidth there (gate/up, 12.6 MB, 12.4 µs), so these small cases
// get a kernel that streams each weight row with 16-byte loads, several in
// flight per lane, against x staged in shared memory.
#include "engine/cuda/gemv.h"

#include "engine/cuda/dependent_launch.cuh"

#include <cuda_bf16.h>

#include <cstdint>

namespace engine::cuda {

namespace {
constexpr int kWarps = 4;

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

/// x's 8 elements at chunk c of row n: plain, or silu(gate) · up from
/// [N][2·cols] gate_up (rounded to bf16, as launch_silu_mul stores it).
template <bool SWIGLU>
__device__ __forceinline__ uint4 x_chunk(const uint4 *x, int chunks, int n,
                                         int c) {
  if (!SWIGLU)
    return __ldg(x + n * chunks + c);
  const uint4 g = __ldg(x + n * 2 * chunks + c);
  const uint4 u = __ldg(x + n * 2 * chunks + chunks + c);
  const uint32_t gw[4] = {g.x, g.y, g.z, g.w}, uw[4] = {u.x, u.y, u.z, u.w};
  uint32_t o[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float g0 = __uint_as_float(gw[e] << 16);
    const float g1 = __uint_as_float(gw[e] & 0xffff0000u);
    const float a0 = g0 / (1.f + __expf(-g0)) * __uint_as_float(uw[e] << 16);
    const float a1 =
        g1 / (1.f + __expf(-g1)) * __uint_as_float(uw[e] & 0xffff0000u);
    o[e] = uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(a0))) |
           uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(a1))) << 16;
  }
  return make_uint4(o[0], o[1], o[2], o[3]);
}

/// Rows too few to fill the GPU get several warps each (split along the
/// columns, summed in shared memory), for more loads in flight. x is read
/// through the cache (it is small and every warp reads it), next to the
/// weights, so neither waits for the other.
template <int N, bool F32, bool SWIGLU, int WARPS_PER_ROW>
__global__ void __launch_bounds__(kWarps * 32)
    gemv_kernel(const uint16_t *w, int rows, int cols, const uint16_t *x,
                void *y) {
  __shared__ float partial[kWarps][N];
  const int chunks = cols / 8;
  constexpr int kRowsPerBlock = kWarps / WARPS_PER_ROW;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = blockIdx.x * kRowsPerBlock + warp / WARPS_PER_ROW;
  const int part = warp % WARPS_PER_ROW;
  const uint4 *xv = reinterpret_cast<const uint4 *>(x);
  float acc[N];
#pragma unroll
  for (int n = 0; n < N; ++n)
    acc[n] = 0.f;
  // Nothing before this reads x (written by the kernel ahead). Loading the
  // first weights ahead of it was tried and lost: 950 against 976 tok/s at
  // batch 1 without dependent launch, 990 against 1,022 with it (H200).
  wait_for_previous_kernel();
  if (r < rows) {
    const uint4 *wr = reinterpret_cast<const uint4 *>(w + int64_t(r) * cols);
#pragma unroll 4
    for (int c = part * 32 + lane; c < chunks; c += 32 * WARPS_PER_ROW) {
      const uint4 wv = __ldcs(wr + c); // read once per step: don't keep it
#pragma unroll
      for (int n = 0; n < N; ++n)
        acc[n] += dot8(wv, x_chunk<SWIGLU>(xv, chunks, n, c));
    }
  }
#pragma unroll
  for (int n = 0; n < N; ++n) {
    float v = acc[n];
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
    acc[n] = v;
  }
  if (WARPS_PER_ROW > 1) {
    if (lane == 0)
#pragma unroll
      for (int n = 0; n < N; ++n)
        partial[warp][n] = acc[n];
    __syncthreads();
    if (part != 0)
      return;
#pragma unroll
    for (int n = 0; n < N; ++n) {
      acc[n] = 0.f;
      for (int k = 0; k < WARPS_PER_ROW; ++k)
        acc[n] += partial[warp + k][n];
    }
  }
  if (lane != 0 || r >= rows)
    return;
#pragma unroll
  for (int n = 0; n < N; ++n) {
    if (F32)
      static_cast<float *>(y)[int64_t(n) * rows + r] = acc[n];
    else
      static_cast<uint16_t *>(y)[int64_t(n) * rows + r] =
          __bfloat16_as_ushort(__float2bfloat16_rn(acc[n]));
  }
}

template <int N, bool SWIGLU, int WPR>
void launch_split(const uint16_t *w, int rows, int cols, const uint16_t *x,
                  void *y, bool y_f32, cudaStream_t stream) {
  constexpr int kRowsPerBlock = kWarps / WPR;
  const dim3 grid((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  if (y_f32)
    launch_dependent(gemv_kernel<N, true, SWIGLU, WPR>, grid, kWarps * 32, 0,
                     stream, w, rows, cols, x, y);
  else
    launch_dependent(gemv_kernel<N, false, SWIGLU, WPR>, grid, kWarps * 32, 0,
                     stream, w, rows, cols, x, y);
}

// Below this many rows a row gets four warps: with one, a 1024-row
// projection is 1024 warps, too few loads in flight to reach the memory's
// bandwidth (measured on the H200: 4.1 µs per projection, 40% of it).
constexpr int kSplitBelowRows = 16384;

template <int N, bool SWIGLU>
void launch(const uint16_t *w, int rows, int cols, const uint16_t *x, void *y,
            bool y_f32, cudaStream_t stream) {
  if (rows < kSplitBelowRows)
    launch_split<N, SWIGLU, 4>(w, rows, cols, x, y, y_f32, stream);
  else
    launch_split<N, SWIGLU, 1>(w, rows, cols, x, y, y_f32, stream);
}

template <bool SWIGLU>
void launch_n(const uint16_t *w, int rows, int cols, const uint16_t *x, int n,
              void *y, bool y_f32, cudaStream_t stream) {
  switch (n) {
  case 1:
    return launch<1, SWIGLU>(w, rows, cols, x, y, y_f32, stream);
  case 2:
    return launch<2, SWIGLU>(w, rows, cols, x, y, y_f32, stream);
  case 3:
    return launch<3, SWIGLU>(w, rows, cols, x, y, y_f32, stream);
  case 4:
    return launch<4, SWIGLU>(w, rows, cols, x, y, y_f32, stream);
  }
}
} // namespace

bool gemv_supports(int n, int cols) {
  return n >= 1 && n <= kMaxGemvRows && cols % 8 == 0;
}

void launch_gemv(const uint16_t *w, int rows, int cols, const uint16_t *x,
                 int n, void *y, bool y_f32, cudaStream_t stream) {
  launch_n<false>(w, rows, cols, x, n, y, y_f32, stream);
}

void launch_gemv_swiglu(const uint16_t *w, int rows, int cols,
                        const uint16_t *gate_up, int n, uint16_t *y,
                        cudaStream_t stream) {
  launch_n<true>(w, rows, cols, gate_up, n, y, false, stream);
}

} // namespace engine::cuda
