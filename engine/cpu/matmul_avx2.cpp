// engine/cpu/matmul_avx2.cpp - matmul with fp32 x and fp32 FMA on AVX2 for
// f32, f16 (F16C) and bf16 (shifted into fp32) weights: the avx2 level.
#include "engine/cpu/avx2_math.h"
#include "engine/cpu/matmul_kernels.h"

#include <algorithm>
#include <immintrin.h>
#include <vector>

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

// R weight rows × M x rows of y; 16 ymm registers hold R·M accumulators, R
// weights and one x vector.
template <DType T, int R, int M>
ENGINE_AVX2 void block(const MatmulJob &job, int64_t r, int64_t i) {
  const int64_t cols = job.cols;
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
  for (int b = 0; b < M; ++b)
    for (int a = 0; a < R; ++a) {
      float s = hsum(acc[a][b]);
      for (int64_t t = k; t < cols; ++t)
        s += x[b * cols + t] * load_w1<T>(job.w, (r + a) * cols + t);
      job.y[(i + b) * job.rows + r + a] = s;
    }
}

template <DType T, int R>
ENGINE_AVX2 void x_rows(const MatmulJob &job, int64_t r, int64_t i0,
                        int64_t i1) {
  int64_t i = i0;
  for (; i + 3 <= i1; i += 3)
    block<T, R, 3>(job, r, i);
  switch (i1 - i) {
  case 2:
    block<T, R, 2>(job, r, i);
    break;
  case 1:
    block<T, R, 1>(job, r, i);
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

// Decode (m = 1) with bf16 weights: a matrix-vector product that must keep
// the memory busy. A 32-byte load holds 16 weights; shifting each 32-bit
// lane left by 16 gives the even-numbered ones as fp32 and masking the low
// half gives the odd ones, so x is split the same way once per call
// (xs: per 16 columns, the 8 even then the 8 odd). R rows stream at once,
// two accumulators each; the next R rows, one contiguous stretch, are
// prefetched meanwhile, R/2 lines a step.
template <int R>
ENGINE_AVX2 void gemv_bf16_block(const MatmulJob &job, const float *xs,
                                 int64_t r, const char *next) {
  const int64_t cols = job.cols, groups = cols / 16;
  const uint16_t *w = static_cast<const uint16_t *>(job.w) + r * cols;
  const __m256i high = _mm256_set1_epi32(int(0xffff0000u));
  __m256 even[R], odd[R];
  for (int a = 0; a < R; ++a)
    even[a] = odd[a] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    const __m256 xe = _mm256_loadu_ps(xs + 16 * g);
    const __m256 xo = _mm256_loadu_ps(xs + 16 * g + 8);
    if (next)
      for (int j = 0; j < R / 2; ++j)
        _mm_prefetch(next + (g * (R / 2) + j) * 64, _MM_HINT_T0);
    for (int a = 0; a < R; ++a) {
      const __m256i v = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(w + a * cols + 16 * g));
      even[a] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(v, 16)),
                                xe, even[a]);
      odd[a] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(v, high)),
                               xo, odd[a]);
    }
  }
  for (int a = 0; a < R; ++a) {
    float s = hsum(_mm256_add_ps(even[a], odd[a]));
    for (int64_t t = groups * 16; t < cols; ++t)
      s += job.x[t] * bf16_to_f32(w[a * cols + t]);
    job.y[r + a] = s;
  }
}

// Two rows at a time measured best here (AMD EPYC Zen 3, 2 vCPUs, tg64
// over three rounds): 8.1-9.1 tok/s on one thread against 7.5-8.4 with
// four rows, 6.7-7.3 without the prefetch, and 5.5 for the general kernel;
// prefetching two or four blocks ahead gained nothing.
ENGINE_AVX2 void gemv_bf16_rows(const MatmulJob &job, int64_t r0, int64_t r1) {
  constexpr int R = 2;
  thread_local std::vector<float> split;
  const int64_t groups = job.cols / 16;
  split.resize(size_t(groups * 16));
  for (int64_t g = 0; g < groups; ++g)
    for (int j = 0; j < 8; ++j) {
      split[size_t(16 * g + j)] = job.x[16 * g + 2 * j];
      split[size_t(16 * g + 8 + j)] = job.x[16 * g + 2 * j + 1];
    }
  const char *w = static_cast<const char *>(job.w);
  int64_t r = r0;
  for (; r + R <= r1; r += R) {
    const char *next = r + 2 * R <= r1 ? w + (r + R) * job.cols * 2 : nullptr;
    gemv_bf16_block<R>(job, split.data(), r, next);
  }
  for (; r < r1; ++r)
    gemv_bf16_block<1>(job, split.data(), r, nullptr);
}

} // namespace

void matmul_rows_avx2(const MatmulJob &job, int64_t r0, int64_t r1) {
  if (job.m == 1 && job.dtype == DType::BF16 && job.cols >= 16) {
    gemv_bf16_rows(job, r0, r1);
    return;
  }
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
