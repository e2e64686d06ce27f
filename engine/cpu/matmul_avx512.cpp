// engine/cpu/matmul_avx512.cpp - matmul with fp32 x and fp32 FMA on AVX-512
// for f32, f16 (vcvtph2ps) and bf16 (shifted into fp32) weights: the kernel of
// the avx512 level, and of f16 weights at every level above it (AVX512-FP16
// would accumulate in fp16, too coarse for dot products of thousands of
// terms).
#include "engine/cpu/matmul_kernels.h"

#include <algorithm>
#include <immintrin.h>

#define ENGINE_AVX512                                                          \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

// Weights are only 2-byte aligned (memory-mapped safetensors), so every load
// is unaligned; the tail of a row is read with a mask, which never touches
// memory past the row.
template <DType T>
ENGINE_AVX512 inline __m512 load_w(const void *w, int64_t at) {
  if constexpr (T == DType::F32)
    return _mm512_loadu_ps(static_cast<const float *>(w) + at);
  else if constexpr (T == DType::F16)
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(
        static_cast<const uint16_t *>(w) + at)));
  else
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(
                              reinterpret_cast<const __m256i *>(
                                  static_cast<const uint16_t *>(w) + at))),
                          16));
}

template <DType T>
ENGINE_AVX512 inline __m512 load_w_masked(const void *w, int64_t at,
                                          __mmask16 mask) {
  if constexpr (T == DType::F32)
    return _mm512_maskz_loadu_ps(mask, static_cast<const float *>(w) + at);
  else if constexpr (T == DType::F16)
    return _mm512_cvtph_ps(
        _mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t *>(w) + at));
  else
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(
                              mask, static_cast<const uint16_t *>(w) + at)),
                          16));
}

// R weight rows × M x rows of y, accumulators in registers.
template <DType T, int R, int M>
ENGINE_AVX512 void block(const MatmulJob &job, int64_t r, int64_t i) {
  const int64_t cols = job.cols;
  const float *x = job.x + i * cols;
  __m512 acc[R][M];
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < M; ++b)
      acc[a][b] = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 16 <= cols; k += 16) {
    __m512 wv[R];
    for (int a = 0; a < R; ++a)
      wv[a] = load_w<T>(job.w, (r + a) * cols + k);
    for (int b = 0; b < M; ++b) {
      __m512 xv = _mm512_loadu_ps(x + b * cols + k);
      for (int a = 0; a < R; ++a)
        acc[a][b] = _mm512_fmadd_ps(wv[a], xv, acc[a][b]);
    }
  }
  if (k < cols) {
    __mmask16 mask = __mmask16((1u << (cols - k)) - 1);
    __m512 wv[R];
    for (int a = 0; a < R; ++a)
      wv[a] = load_w_masked<T>(job.w, (r + a) * cols + k, mask);
    for (int b = 0; b < M; ++b) {
      __m512 xv = _mm512_maskz_loadu_ps(mask, x + b * cols + k);
      for (int a = 0; a < R; ++a)
        acc[a][b] = _mm512_fmadd_ps(wv[a], xv, acc[a][b]);
    }
  }
  for (int b = 0; b < M; ++b)
    for (int a = 0; a < R; ++a)
      job.y[(i + b) * job.rows + r + a] = _mm512_reduce_add_ps(acc[a][b]);
}

template <DType T, int R>
ENGINE_AVX512 void x_rows(const MatmulJob &job, int64_t r, int64_t i0,
                          int64_t i1) {
  int64_t i = i0;
  for (; i + 4 <= i1; i += 4)
    block<T, R, 4>(job, r, i);
  switch (i1 - i) {
  case 3:
    block<T, R, 3>(job, r, i);
    break;
  case 2:
    block<T, R, 2>(job, r, i);
    break;
  case 1:
    block<T, R, 1>(job, r, i);
    break;
  }
}

template <DType T>
ENGINE_AVX512 void rows(const MatmulJob &job, int64_t r0, int64_t r1) {
  // x is taken in chunks that stay in L2 (≤ 512 KiB) while a slice of
  // weights streams past them.
  int64_t chunk = std::max<int64_t>(4, (512 << 10) / (job.cols * 4) / 4 * 4);
  for (int64_t i0 = 0; i0 < job.m; i0 += chunk) {
    int64_t i1 = std::min(job.m, i0 + chunk);
    int64_t r = r0;
    for (; r + 4 <= r1; r += 4)
      x_rows<T, 4>(job, r, i0, i1);
    for (; r < r1; ++r)
      x_rows<T, 1>(job, r, i0, i1);
  }
}

} // namespace

void matmul_rows_avx512(const MatmulJob &job, int64_t r0, int64_t r1) {
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
