// engine/cpu/avx2_math.h - the AVX2 helpers the avx2 kernels share (internal
// to engine/cpu): eight bf16 widened to fp32, and the sum of eight floats.
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

} // namespace engine::cpu_detail
