// engine/cpu/avx2_math.h - the AVX2 helpers the avx2 kernels share (internal
// to engine/cpu): eight bf16 widened to fp32, the sum of eight floats, the
// sums of eight vectors at once, and e^x for eight floats.
#pragma once

#include <cstdint>
#include <immintrin.h>

namespace engine::cpu_detail {

/// fp32 of the eight bf16 at p (a bf16 is the top half of its fp32).
__attribute__((target("avx2"))) inline __m256 load_bf16x8(const uint16_t *p) {
  return _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(
                            reinterpret_cast<const __m128i *>(p))),
                        16));
}

__attribute__((target("avx2"))) inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/// The sums of v[0..7], lane i holding v[i]'s: three rounds of pairwise adds
/// across the vectors (six vhaddps, two lane swaps, one add) instead of eight
/// separate reductions, each a chain of four dependent adds.
__attribute__((target("avx2"))) inline __m256 hsum8(const __m256 *v) {
  const __m256 a = _mm256_hadd_ps(v[0], v[1]), b = _mm256_hadd_ps(v[2], v[3]),
               c = _mm256_hadd_ps(v[4], v[5]), d = _mm256_hadd_ps(v[6], v[7]);
  const __m256 ab = _mm256_hadd_ps(a, b), cd = _mm256_hadd_ps(c, d);
  // ab: v0..v3's sums of lanes 0-3, then of lanes 4-7; cd: v4..v7's.
  return _mm256_add_ps(_mm256_permute2f128_ps(ab, cd, 0x20),
                       _mm256_permute2f128_ps(ab, cd, 0x31));
}

/// The largest of the eight lanes of v.
__attribute__((target("avx2"))) inline float hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/// e^x for 8 floats, the AVX2 form of exp512 (simd_math.h): within 2 ulp for
/// normal results, inputs clamped to [-104, 88.7] (so -inf gives 0), NaN
/// stays NaN. Without vscalefps, 2^n is built in the exponent field in two
/// halves, 2^(n>>1) and 2^(n-(n>>1)), each a normal float for every n the
/// clamp allows (-150 to 128), their product underflowing as it should.
__attribute__((target("avx2,fma"))) inline __m256 exp256(__m256 x) {
  // max/min return the second operand when one is NaN: x goes second.
  x = _mm256_min_ps(_mm256_set1_ps(88.7f),
                    _mm256_max_ps(_mm256_set1_ps(-104.0f), x));
  const __m256 n =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // ln2 split in a part with few mantissa bits (n·hi is exact) and the rest.
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.4286068202862268e-06f), r);
  __m256 p = _mm256_set1_ps(1.0f / 5040);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  // NaN converts to INT_MIN: the factors are then arbitrary, p is NaN.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(ni, 1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 f1 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  const __m256 f2 = _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_add_epi32(_mm256_sub_epi32(ni, half), bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, f1), f2);
}

/// Lane j (0-7) of v, from registers: a constant j after unrolling is one
/// shuffle, where a store and a 4-byte reload of part of it would wait for
/// store-to-load forwarding.
__attribute__((target("avx2"))) inline float lane(__m256 v, int j) {
  const __m128 half =
      j < 4 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1);
  switch (j % 4) {
  case 0:
    return _mm_cvtss_f32(half);
  case 1:
    return _mm_cvtss_f32(_mm_movehdup_ps(half));
  case 2:
    return _mm_cvtss_f32(_mm_movehl_ps(half, half));
  default:
    return _mm_cvtss_f32(_mm_shuffle_ps(half, half, 3));
  }
}

} // namespace engine::cpu_detail
