// engine/sampler_kernels.cpp - SSE2 and AVX2+FMA versions of the Sampler's
// row passes (see sampler_kernels.h). The AVX2 functions carry a target
// attribute instead of the file being built with -mavx2, so one binary runs
// everywhere and the dispatch below decides.
#include "engine/cpu/sampler_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENGINE_SAMPLER_X86 1
#endif

namespace engine {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// exp(-87) is 1.6e-38 of the maximum: below it a probability is 0.
constexpr float kExpFloor = -87.0f;
// exp(x) = 2^n * exp(r), x = n ln2 + r, |r| <= ln2 / 2 (Cephes expf).
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f,
                kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

float exp_scalar(float x) { return x >= kExpFloor ? std::exp(x) : 0.0f; }

// Scalar tails and the off-x86 kernels.
float max_tail(const float *x, int64_t i, int64_t n, float m) {
  for (; i < n; ++i)
    m = x[i] > m ? x[i] : m; // NaN compares false: skipped
  return m;
}

int64_t find_tail(const float *x, int64_t i, int64_t n, float value) {
  for (; i < n; ++i)
    if (x[i] == value)
      return i;
  return -1;
}

double exp_tail(float *x, int64_t i, int64_t n, float max, float inv_t) {
  double sum = 0;
  for (; i < n; ++i)
    sum += x[i] = exp_scalar((x[i] - max) * inv_t);
  return sum;
}

#ifndef ENGINE_SAMPLER_X86
float row_max_scalar(const float *x, int64_t n) {
  return max_tail(x, 0, n, kNegInf);
}
int64_t first_index_of_scalar(const float *x, int64_t n, float value) {
  return find_tail(x, 0, n, value);
}
int64_t skip_below_scalar(const float *x, int64_t i, int64_t n, float thr) {
  for (; i + kGroup <= n; i += kGroup)
    for (int64_t j = i; j < i + kGroup; ++j)
      if (x[j] >= thr)
        return i;
  return i;
}
double exp_in_place_scalar(float *x, int64_t n, float max, float inv_t) {
  return exp_tail(x, 0, n, max, inv_t);
}
#else

// ---- SSE2 -----------------------------------------------------------------

float row_max_sse2(const float *x, int64_t n) {
  // Eight independent accumulators hide MAXPS latency. MAXPS returns its
  // second operand when either is NaN, so NaN logits never get in.
  __m128 a[8];
  for (__m128 &v : a)
    v = _mm_set1_ps(kNegInf);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 8; ++j)
      a[j] = _mm_max_ps(_mm_loadu_ps(x + i + 4 * j), a[j]);
  for (int j = 1; j < 8; ++j)
    a[0] = _mm_max_ps(a[j], a[0]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, a[0]);
  return max_tail(x, i, n, max_tail(lanes, 0, 4, kNegInf));
}

int64_t first_index_of_sse2(const float *x, int64_t n, float value) {
  const __m128 v = _mm_set1_ps(value);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128 hit =
        _mm_or_ps(_mm_or_ps(_mm_cmpeq_ps(_mm_loadu_ps(x + i), v),
                            _mm_cmpeq_ps(_mm_loadu_ps(x + i + 4), v)),
                  _mm_or_ps(_mm_cmpeq_ps(_mm_loadu_ps(x + i + 8), v),
                            _mm_cmpeq_ps(_mm_loadu_ps(x + i + 12), v)));
    if (_mm_movemask_ps(hit))
      break;
  }
  return find_tail(x, i, n, value);
}

int64_t skip_below_sse2(const float *x, int64_t i, int64_t n, float thr) {
  const __m128 t = _mm_set1_ps(thr);
  for (; i + 16 <= n; i += 16) {
    const __m128 hit =
        _mm_or_ps(_mm_or_ps(_mm_cmpge_ps(_mm_loadu_ps(x + i), t),
                            _mm_cmpge_ps(_mm_loadu_ps(x + i + 4), t)),
                  _mm_or_ps(_mm_cmpge_ps(_mm_loadu_ps(x + i + 8), t),
                            _mm_cmpge_ps(_mm_loadu_ps(x + i + 12), t)));
    if (_mm_movemask_ps(hit))
      return i;
  }
  return i;
}

__m128 exp_sse2(__m128 x) {
  const __m128 zero = _mm_cmpnge_ps(x, _mm_set1_ps(kExpFloor)); // or NaN
  x = _mm_max_ps(x, _mm_set1_ps(kExpFloor));
  const __m128i n = _mm_cvtps_epi32(_mm_mul_ps(x, _mm_set1_ps(kLog2e)));
  const __m128 fn = _mm_cvtepi32_ps(n);
  __m128 r = _mm_sub_ps(x, _mm_mul_ps(fn, _mm_set1_ps(kLn2Hi)));
  r = _mm_sub_ps(r, _mm_mul_ps(fn, _mm_set1_ps(kLn2Lo)));
  __m128 p = _mm_set1_ps(kP0);
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP1));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP2));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP3));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP4));
  p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP5));
  p = _mm_add_ps(_mm_mul_ps(_mm_mul_ps(p, r), r), r);
  p = _mm_add_ps(p, _mm_set1_ps(1.0f));
  const __m128i scale =
      _mm_slli_epi32(_mm_add_epi32(n, _mm_set1_epi32(127)), 23);
  return _mm_andnot_ps(zero, _mm_mul_ps(p, _mm_castsi128_ps(scale)));
}

double exp_in_place_sse2(float *x, int64_t n, float max, float inv_t) {
  const __m128 m = _mm_set1_ps(max), s = _mm_set1_ps(inv_t);
  __m128 acc0 = _mm_setzero_ps(), acc1 = acc0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128 e0 =
        exp_sse2(_mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(x + i), m), s));
    const __m128 e1 =
        exp_sse2(_mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(x + i + 4), m), s));
    _mm_storeu_ps(x + i, e0);
    _mm_storeu_ps(x + i + 4, e1);
    acc0 = _mm_add_ps(acc0, e0);
    acc1 = _mm_add_ps(acc1, e1);
  }
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, _mm_add_ps(acc0, acc1));
  return static_cast<double>(lanes[0]) + lanes[1] + lanes[2] + lanes[3] +
         exp_tail(x, i, n, max, inv_t);
}

// ---- AVX2 + FMA -----------------------------------------------------------

#define ENGINE_AVX2 __attribute__((target("avx2,fma")))

ENGINE_AVX2 float row_max_avx2(const float *x, int64_t n) {
  __m256 a[8];
  for (__m256 &v : a)
    v = _mm256_set1_ps(kNegInf);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int j = 0; j < 8; ++j)
      a[j] = _mm256_max_ps(_mm256_loadu_ps(x + i + 8 * j), a[j]);
  for (int j = 1; j < 8; ++j)
    a[0] = _mm256_max_ps(a[j], a[0]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, a[0]);
  return max_tail(x, i, n, max_tail(lanes, 0, 8, kNegInf));
}

ENGINE_AVX2 int64_t first_index_of_avx2(const float *x, int64_t n,
                                        float value) {
  const __m256 v = _mm256_set1_ps(value);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 hit = _mm256_or_ps(
        _mm256_or_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), v, _CMP_EQ_OQ),
                     _mm256_cmp_ps(_mm256_loadu_ps(x + i + 8), v, _CMP_EQ_OQ)),
        _mm256_or_ps(
            _mm256_cmp_ps(_mm256_loadu_ps(x + i + 16), v, _CMP_EQ_OQ),
            _mm256_cmp_ps(_mm256_loadu_ps(x + i + 24), v, _CMP_EQ_OQ)));
    if (_mm256_movemask_ps(hit))
      break;
  }
  return find_tail(x, i, n, value);
}

ENGINE_AVX2 int64_t skip_below_avx2(const float *x, int64_t i, int64_t n,
                                    float thr) {
  const __m256 t = _mm256_set1_ps(thr);
  // Two groups per iteration halves the branches on the common path.
  for (; i + 32 <= n; i += 32) {
    const __m256 lo =
        _mm256_or_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), t, _CMP_GE_OQ),
                     _mm256_cmp_ps(_mm256_loadu_ps(x + i + 8), t, _CMP_GE_OQ));
    const __m256 hi =
        _mm256_or_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i + 16), t, _CMP_GE_OQ),
                     _mm256_cmp_ps(_mm256_loadu_ps(x + i + 24), t, _CMP_GE_OQ));
    if (_mm256_movemask_ps(_mm256_or_ps(lo, hi)))
      return _mm256_movemask_ps(lo) ? i : i + 16;
  }
  if (i + 16 <= n &&
      !_mm256_movemask_ps(_mm256_or_ps(
          _mm256_cmp_ps(_mm256_loadu_ps(x + i), t, _CMP_GE_OQ),
          _mm256_cmp_ps(_mm256_loadu_ps(x + i + 8), t, _CMP_GE_OQ))))
    i += 16;
  return i;
}

ENGINE_AVX2 __m256 exp_avx2(__m256 x) {
  const __m256 floor = _mm256_set1_ps(kExpFloor);
  const __m256 zero = _mm256_cmp_ps(x, floor, _CMP_NGE_UQ); // or NaN
  x = _mm256_max_ps(x, floor);
  const __m256 fn =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r);
  p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
  const __m256i scale = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(fn), _mm256_set1_epi32(127)), 23);
  return _mm256_andnot_ps(zero, _mm256_mul_ps(p, _mm256_castsi256_ps(scale)));
}

ENGINE_AVX2 double exp_in_place_avx2(float *x, int64_t n, float max,
                                     float inv_t) {
  const __m256 m = _mm256_set1_ps(max), s = _mm256_set1_ps(inv_t);
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 e0 =
        exp_avx2(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), s));
    const __m256 e1 = exp_avx2(
        _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), m), s));
    _mm256_storeu_ps(x + i, e0);
    _mm256_storeu_ps(x + i + 8, e1);
    acc0 = _mm256_add_ps(acc0, e0);
    acc1 = _mm256_add_ps(acc1, e1);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(acc0, acc1));
  double sum = 0;
  for (float v : lanes)
    sum += v;
  return sum + exp_tail(x, i, n, max, inv_t);
}

#undef ENGINE_AVX2
#endif

} // namespace

const SamplerKernels &baseline_sampler_kernels() {
#ifdef ENGINE_SAMPLER_X86
  static const SamplerKernels k = {row_max_sse2, first_index_of_sse2,
                                   skip_below_sse2, exp_in_place_sse2, "sse2"};
#else
  static const SamplerKernels k = {row_max_scalar, first_index_of_scalar,
                                   skip_below_scalar, exp_in_place_scalar,
                                   "scalar"};
#endif
  return k;
}

const SamplerKernels &sampler_kernels() {
#ifdef ENGINE_SAMPLER_X86
  static const SamplerKernels avx2 = {row_max_avx2, first_index_of_avx2,
                                      skip_below_avx2, exp_in_place_avx2,
                                      "avx2"};
  static const bool has_avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (has_avx2)
    return avx2;
#endif
  return baseline_sampler_kernels();
}

} // namespace engine
