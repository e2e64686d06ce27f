// engine/cpu/simd_math.h - vectorized exp for AVX-512 (internal to
// engine/cpu), shared by silu, softmax and attention. Include only from files
// whose functions carry an AVX-512 target attribute.
#pragma once

#include <immintrin.h>

namespace engine::cpu_detail {

/// e^x for 16 floats, within 2 ulp of the exact value for normal results.
/// Inputs are clamped to [-104, 88.7] (so -inf gives 0 and +inf gives 3.4e38,
/// never inf); NaN stays NaN. The reduction x = n·ln2 + r, |r| ≤ ln2/2, makes a
/// degree-7 Taylor polynomial exact to 5e-9, and vscalefps applies 2^n
/// without building the exponent by hand (it also underflows gracefully).
__attribute__((target("avx512f"))) inline __m512 exp512(__m512 x) {
  // max/min return the second operand when one is NaN: x goes second.
  x = _mm512_min_ps(_mm512_set1_ps(88.7f),
                    _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // ln2 split in a part with few mantissa bits (n·hi is exact) and the rest.
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.4286068202862268e-06f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

} // namespace engine::cpu_detail
