// engine/cpu/matmul_avx2.cpp - matmul with fp32 x and fp32 FMA on AVX2 for
// f32, f16 (F16C) and bf16 (shifted into fp32) weights: the avx2 level.
#include "engine/cpu/avx2_math.h"
#include "engine/cpu/matmul_kernels.h"

#include <algorithm>
#include <immintrin.h>

#define ENGINE_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

template <DType T> ENGINE_AVX2 inline __m256 load_w(const void *w, int64_t at) {
  if constexpr (T == DType::F32)
    return _mm256_loadu_ps(static_cast<const float *>(w) + at);
  else if constexpr (T == DType::F16)
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(
        static_cast<const uint16_t *>(w) + at)));
  else
    return load_bf16x8(static_cast<const uint16_t *>(w) + at);
}

template <DType T> inline float load_w1(const void *w, int64_t at) {
  if constexpr (T == DType::F32)
    return static_cast<const float *>(w)[at];
  else if constexpr (T == DType::F16)
    return f16_to_f32(static_cast<const uint16_t *>(w)[at]);
  else
    return bf16_to_f32(static_cast<const uint16_t *>(w)[at]);
}

// R weight rows × M x rows of y at a time, for x rows [i0, i1) (a multiple
// of M apart); 16 ymm registers hold R·M accumulators, R weights and one x
// vector. One call covers every x row of the chunk: with a call per block,
// GCC 12 paid its prologue, stack realignment and epilogue for every M x
// rows, which on small matrices (the tiny model's 64 columns: eight steps of
// the k loop) was as long as the block's own work.
template <DType T, int R, int M>
ENGINE_AVX2 void block_rows(const MatmulJob &job, int64_t r, int64_t i0,
                            int64_t i1) {
  const int64_t cols = job.cols;
  for (int64_t i = i0; i < i1; i += M) {
    const float *x = job.x + i * cols;
    __m256 acc[R][M];
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < M; ++b)
        acc[a][b] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 8 <= cols; k += 8) {
      __m256 wv[R];
      for (int a = 0; a < R; ++a)
        wv[a] = load_w<T>(job.w, (r + a) * cols + k);
      for (int b = 0; b < M; ++b) {
        __m256 xv = _mm256_loadu_ps(x + b * cols + k);
        for (int a = 0; a < R; ++a)
          acc[a][b] = _mm256_fmadd_ps(wv[a], xv, acc[a][b]);
      }
    }
    // The R·M sums eight at a time, not each accumulator on its own (nine
    // serial reductions of spilled accumulators, GCC's code took).
    constexpr int N = R * M, Padded = (N + 7) / 8 * 8;
    __m256 flat[Padded];
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < M; ++b)
        flat[a * M + b] = acc[a][b];
    for (int j = N; j < Padded; ++j)
      flat[j] = _mm256_setzero_ps();
    __m256 sums[Padded / 8];
    for (int g = 0; g < Padded; g += 8)
      sums[g / 8] = hsum8(flat + g);
#pragma GCC unroll 16
    for (int b = 0; b < M; ++b)
#pragma GCC unroll 16
      for (int a = 0; a < R; ++a) {
        float s = lane(sums[(a * M + b) / 8], (a * M + b) % 8);
        for (int64_t t = k; t < cols; ++t)
          s += x[b * cols + t] * load_w1<T>(job.w, (r + a) * cols + t);
        job.y[(i + b) * job.rows + r + a] = s;
      }
  }
}

template <DType T, int R>
ENGINE_AVX2 void x_rows(const MatmulJob &job, int64_t r, int64_t i0,
                        int64_t i1) {
  const int64_t whole = i0 + (i1 - i0) / 3 * 3;
  if (whole > i0)
    block_rows<T, R, 3>(job, r, i0, whole);
  switch (i1 - whole) {
  case 2:
    block_rows<T, R, 2>(job, r, whole, i1);
    break;
  case 1:
    block_rows<T, R, 1>(job, r, whole, i1);
    break;
  }
}

template <DType T>
ENGINE_AVX2 void rows(const MatmulJob &job, int64_t r0, int64_t r1) {
  int64_t chunk = std::max<int64_t>(3, (512 << 10) / (job.cols * 4) / 3 * 3);
  for (int64_t i0 = 0; i0 < job.m; i0 += chunk) {
    int64_t i1 = std::min(job.m, i0 + chunk);
    int64_t r = r0;
    for (; r + 3 <= r1; r += 3)
      x_rows<T, 3>(job, r, i0, i1);
    for (; r < r1; ++r)
      x_rows<T, 1>(job, r, i0, i1);
  }
}

} // namespace

void matmul_rows_avx2(const MatmulJob &job, int64_t r0, int64_t r1) {
  switch (job.dtype) {
  case DType::F32:
    rows<DType::F32>(job, r0, r1);
    break;
  case DType::F16:
    rows<DType::F16>(job, r0, r1);
    break;
  case DType::BF16:
    rows<DType::BF16>(job, r0, r1);
    break;
  }
}

} // namespace engine::cpu_detail
