// engine/cuda/gemv_kernels.cu - the projections of a decode step with a few
// sequences: y = x·wᵀ for up to 4 rows of x, four warps per output row (one
// in matrices as tall as the lm_head).
//
// At batch 1 to 4 a projection is a matrix-vector product bound by reading
// the weights once; cuBLAS's GEMM kernels reached about a fifth of the
// H200's bandwidth there (gate/up, 12.6 MB, 12.4 µs), so these small cases
// get a kernel that streams each weight row with 16-byte loads, several in
// flight per lane, against x read through the cache (gemv_options.h has two
// ways of reading the weights still to be measured).
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

/// Asks for rows [first, first + count) of w (cols wide, clipped to rows) in
/// L2, one 128-byte line per thread at a time. A prefetch loads nothing into
/// registers: the earlier try of issuing the first weight loads before the
/// wait lost by the registers it held (below).
__device__ __forceinline__ void prefetch_rows(const uint16_t *w, int rows,
                                              int cols, int first, int count) {
  const int last = min(first + count, rows);
  if (first >= last)
    return;
  const char *begin = reinterpret_cast<const char *>(w + int64_t(first) * cols);
  const int64_t bytes = int64_t(last - first) * cols * 2;
  for (int64_t at = int64_t(threadIdx.x) * 128; at < bytes;
       at += int64_t(blockDim.x) * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(begin + at));
}

/// Rows too few to fill the GPU get several warps each (WPR, split along
/// the columns, summed in shared memory), for more loads in flight. Such a
/// group of warps takes R rows at once: each lane then has R weight loads in
/// flight and reads its chunks of x once for all R (x is read through the
/// cache: it is small and every group reads it).
template <int N, bool F32, bool SWIGLU, int WPR, int R>
__global__ void __launch_bounds__(kWarps * 32)
    gemv_kernel(const uint16_t *w, int rows, int cols, const uint16_t *x,
                void *y, bool prefetch) {
  __shared__ float partial[kWarps][R][N];
  const int chunks = cols / 8;
  constexpr int kRowsPerBlock = kWarps / WPR * R;
  constexpr int kUnroll = 4 / R; // about as many loads in flight as before
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int first = blockIdx.x * kRowsPerBlock + warp / WPR * R;
  const int part = warp % WPR;
  const uint4 *xv = reinterpret_cast<const uint4 *>(x);
  float acc[R][N];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int n = 0; n < N; ++n)
      acc[i][n] = 0.f;
  // Nothing before this reads x (written by the kernel ahead). Loading the
  // first weights ahead of it was tried and lost: 950 against 976 tok/s at
  // batch 1 without dependent launch, 990 against 1,022 with it (H200).
  // Prefetching them into L2 holds no registers.
  if (prefetch)
    prefetch_rows(w, rows, cols, blockIdx.x * kRowsPerBlock, kRowsPerBlock);
  wait_for_previous_kernel();
  if (first < rows) {
    const uint4 *wr =
        reinterpret_cast<const uint4 *>(w + int64_t(first) * cols);
    // A row past the matrix's end reads the last row again (its sum is never
    // written): no branch inside the loop.
    int64_t at[R] = {}; // row 0 is `first` itself
#pragma unroll
    for (int i = 1; i < R; ++i)
      at[i] = int64_t(min(first + i, rows - 1) - first) * chunks;
#pragma unroll kUnroll
    for (int c = part * 32 + lane; c < chunks; c += 32 * WPR) {
      uint4 wv[R];
#pragma unroll
      for (int i = 0; i < R; ++i)
        wv[i] = __ldcs(wr + at[i] + c); // read once per step: don't keep it
#pragma unroll
      for (int n = 0; n < N; ++n) {
        const uint4 xc = x_chunk<SWIGLU>(xv, chunks, n, c);
#pragma unroll
        for (int i = 0; i < R; ++i)
          acc[i][n] += dot8(wv[i], xc);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int n = 0; n < N; ++n) {
      float v = acc[i][n];
      for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
      acc[i][n] = v;
    }
  if (WPR > 1) {
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int n = 0; n < N; ++n)
          partial[warp][i][n] = acc[i][n];
    __syncthreads();
    if (part != 0)
      return;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int n = 0; n < N; ++n) {
        acc[i][n] = 0.f;
        for (int k = 0; k < WPR; ++k)
          acc[i][n] += partial[warp + k][i][n];
      }
  }
  if (lane != 0)
    return;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int r = first + i;
    if (r >= rows)
      return;
#pragma unroll
    for (int n = 0; n < N; ++n) {
      if (F32)
        static_cast<float *>(y)[int64_t(n) * rows + r] = acc[i][n];
      else
        static_cast<uint16_t *>(y)[int64_t(n) * rows + r] =
            __bfloat16_as_ushort(__float2bfloat16_rn(acc[i][n]));
    }
  }
}

template <int N, bool SWIGLU, int WPR, int R>
void launch_split(const uint16_t *w, int rows, int cols, const uint16_t *x,
                  void *y, bool y_f32, cudaStream_t stream, bool prefetch) {
  constexpr int kRowsPerBlock = kWarps / WPR * R;
  const dim3 grid((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  if (y_f32)
    launch_dependent(gemv_kernel<N, true, SWIGLU, WPR, R>, grid, kWarps * 32, 0,
                     stream, w, rows, cols, x, y, prefetch);
  else
    launch_dependent(gemv_kernel<N, false, SWIGLU, WPR, R>, grid, kWarps * 32,
                     0, stream, w, rows, cols, x, y, prefetch);
}

// Below this many rows a row gets four warps: with one, a 1024-row
// projection is 1024 warps, too few loads in flight to reach the memory's
// bandwidth (measured on the H200: 4.1 µs per projection, 40% of it).
constexpr int kSplitBelowRows = 16384;

template <int N, bool SWIGLU>
void launch(const uint16_t *w, int rows, int cols, const uint16_t *x, void *y,
            bool y_f32, cudaStream_t stream, GemvOptions o) {
  if (rows >= kSplitBelowRows)
    return launch_split<N, SWIGLU, 1, 1>(w, rows, cols, x, y, y_f32, stream,
                                         o.prefetch);
  switch (o.rows_per_group) {
  case 2:
    return launch_split<N, SWIGLU, 4, 2>(w, rows, cols, x, y, y_f32, stream,
                                         o.prefetch);
  case 4:
    return launch_split<N, SWIGLU, 4, 4>(w, rows, cols, x, y, y_f32, stream,
                                         o.prefetch);
  default:
    return launch_split<N, SWIGLU, 4, 1>(w, rows, cols, x, y, y_f32, stream,
                                         o.prefetch);
  }
}

template <bool SWIGLU>
void launch_n(const uint16_t *w, int rows, int cols, const uint16_t *x, int n,
              void *y, bool y_f32, cudaStream_t stream, GemvOptions o) {
  switch (n) {
  case 1:
    return launch<1, SWIGLU>(w, rows, cols, x, y, y_f32, stream, o);
  case 2:
    return launch<2, SWIGLU>(w, rows, cols, x, y, y_f32, stream, o);
  case 3:
    return launch<3, SWIGLU>(w, rows, cols, x, y, y_f32, stream, o);
  case 4:
    return launch<4, SWIGLU>(w, rows, cols, x, y, y_f32, stream, o);
  }
}
} // namespace

bool gemv_supports(int n, int cols) {
  return n >= 1 && n <= kMaxGemvRows && cols % 8 == 0;
}

void launch_gemv(const uint16_t *w, int rows, int cols, const uint16_t *x,
                 int n, void *y, bool y_f32, cudaStream_t stream,
                 GemvOptions options) {
  launch_n<false>(w, rows, cols, x, n, y, y_f32, stream, options);
}

void launch_gemv_swiglu(const uint16_t *w, int rows, int cols,
                        const uint16_t *gate_up, int n, uint16_t *y,
                        cudaStream_t stream, GemvOptions options) {
  launch_n<true>(w, rows, cols, gate_up, n, y, false, stream, options);
}

} // namespace engine::cuda
