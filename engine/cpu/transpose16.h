// engine/cpu/transpose16.h - a 16×16 transpose of 32-bit elements in AVX-512
// registers (internal to engine/cpu), used to turn AMX result tiles and
// x tiles around. Include only from files whose functions carry an
// AVX-512 target attribute.
#pragma once

#include <immintrin.h>

#define ENGINE_TRANSPOSE_TARGET __attribute__((target("avx512f")))

namespace engine::cpu_detail {

/// Transposes r[0..15] (rows) in place: afterwards r[c] is column c.
ENGINE_TRANSPOSE_TARGET inline void transpose16x16(__m512 r[16]) {
  __m512 t[16], u[16];
  // Interleave 32-bit elements of row pairs, then 64-bit pairs: each 128-bit
  // lane of u[4q + c] holds column c (+4, +8, +12 by lane) of rows 4q..4q+3.
  for (int p = 0; p < 8; ++p) {
    t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 4; ++q) {
    __m512d a = _mm512_castps_pd(t[4 * q]), b = _mm512_castps_pd(t[4 * q + 2]);
    __m512d c = _mm512_castps_pd(t[4 * q + 1]),
            d = _mm512_castps_pd(t[4 * q + 3]);
    u[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
    u[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    u[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
    u[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
  }
  // Then gather 128-bit lanes: first across row groups 0/1 and 2/3, then
  // across the halves.
  for (int h = 0; h < 2; ++h)
    for (int c = 0; c < 4; ++c) {
      t[8 * h + c] = _mm512_shuffle_f32x4(u[8 * h + c], u[8 * h + 4 + c], 0x88);
      t[8 * h + 4 + c] =
          _mm512_shuffle_f32x4(u[8 * h + c], u[8 * h + 4 + c], 0xdd);
    }
  for (int c = 0; c < 8; ++c) {
    r[c] = _mm512_shuffle_f32x4(t[c], t[c + 8], 0x88);
    r[c + 8] = _mm512_shuffle_f32x4(t[c], t[c + 8], 0xdd);
  }
}

} // namespace engine::cpu_detail
