// engine/cpu/ops_avx512.cpp - AVX-512 versions of the element-wise ops (see
// ops.h for what each computes). Row tails use masked loads and stores, so
// any dim works and nothing past a row is touched.
#include "engine/cpu/ops_kernels.h"
#include "engine/cpu/simd_math.h"

#include <cmath>
#include <immintrin.h>

#define ENGINE_AVX512                                                          \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

ENGINE_AVX512 inline __mmask16 tail_mask(int64_t left) {
  return left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
}

ENGINE_AVX512 void rms_norm_rows(float *residual, const float *x,
                                 const float *weight, float *out, int64_t r0,
                                 int64_t r1, int64_t dim, float eps) {
  for (int64_t r = r0; r < r1; ++r) {
    const float *src = x + r * dim;
    float *res = residual ? residual + r * dim : nullptr;
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    for (int64_t k = 0; k < dim; k += 16) {
      __mmask16 m = tail_mask(dim - k);
      __m512 v = _mm512_maskz_loadu_ps(m, src + k);
      if (res) {
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, res + k));
        _mm512_mask_storeu_ps(res + k, m, v);
      }
      // Two accumulators: shorter dependency chain for long rows.
      if ((k / 16) % 2 == 0)
        s0 = _mm512_fmadd_ps(v, v, s0);
      else
        s1 = _mm512_fmadd_ps(v, v, s1);
    }
    float mean = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1)) / float(dim);
    __m512 scale = _mm512_set1_ps(1.0f / std::sqrt(mean + eps));
    const float *normed = res ? res : src;
    for (int64_t k = 0; k < dim; k += 16) {
      __mmask16 m = tail_mask(dim - k);
      __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, normed + k), scale);
      v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, weight + k));
      _mm512_mask_storeu_ps(out + r * dim + k, m, v);
    }
  }
}

ENGINE_AVX512 void silu_mul_rows(const float *gate, const float *up,
                                 int64_t in_stride, float *out, int64_t r0,
                                 int64_t r1, int64_t dim) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t k = 0; k < dim; k += 16) {
      __mmask16 m = tail_mask(dim - k);
      __m512 g = _mm512_maskz_loadu_ps(m, gate + r * in_stride + k);
      __m512 u = _mm512_maskz_loadu_ps(m, up + r * in_stride + k);
      __m512 e = exp512(_mm512_sub_ps(_mm512_setzero_ps(), g));
      __m512 silu = _mm512_div_ps(g, _mm512_add_ps(one, e));
      _mm512_mask_storeu_ps(out + r * dim + k, m, _mm512_mul_ps(silu, u));
    }
}

ENGINE_AVX512 void rope_head(float *x, const float *cos, const float *sin,
                             int64_t half) {
  for (int64_t i = 0; i < half; i += 16) {
    __mmask16 m = tail_mask(half - i);
    __m512 a = _mm512_maskz_loadu_ps(m, x + i);
    __m512 b = _mm512_maskz_loadu_ps(m, x + half + i);
    __m512 c = _mm512_maskz_loadu_ps(m, cos + i);
    __m512 s = _mm512_maskz_loadu_ps(m, sin + i);
    _mm512_mask_storeu_ps(x + i, m, _mm512_fmsub_ps(a, c, _mm512_mul_ps(b, s)));
    _mm512_mask_storeu_ps(x + half + i, m,
                          _mm512_fmadd_ps(b, c, _mm512_mul_ps(a, s)));
  }
}

ENGINE_AVX512 void convert(DType dtype, const void *src, float *dst,
                           int64_t n) {
  if (dtype == DType::F32) {
    for (int64_t i = 0; i < n; i += 16) {
      __mmask16 m = tail_mask(n - i);
      _mm512_mask_storeu_ps(
          dst + i, m,
          _mm512_maskz_loadu_ps(m, static_cast<const float *>(src) + i));
    }
    return;
  }
  const uint16_t *h = static_cast<const uint16_t *>(src);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tail_mask(n - i);
    __m256i v = _mm256_maskz_loadu_epi16(m, h + i);
    __m512 f = dtype == DType::F16 ? _mm512_cvtph_ps(v)
                                   : _mm512_castsi512_ps(_mm512_slli_epi32(
                                         _mm512_cvtepu16_epi32(v), 16));
    _mm512_mask_storeu_ps(dst + i, m, f);
  }
}

ENGINE_AVX512 void softmax_impl(float *x, int64_t n) {
  __m512 mx = _mm512_set1_ps(-INFINITY);
  for (int64_t i = 0; i < n; i += 16)
    mx = _mm512_max_ps(mx, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY),
                                                tail_mask(n - i), x + i));
  __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
  __m512 sum = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = tail_mask(n - i);
    __m512 e = exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), m));
    e = _mm512_maskz_mov_ps(k, e);
    sum = _mm512_add_ps(sum, e);
    _mm512_mask_storeu_ps(x + i, k, e);
  }
  __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(x + i, k,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), inv));
  }
}

} // namespace

void rms_norm_avx512(float *residual, const float *x, const float *weight,
                     float *out, int64_t r0, int64_t r1, int64_t dim,
                     float eps) {
  rms_norm_rows(residual, x, weight, out, r0, r1, dim, eps);
}

void silu_mul_avx512(const float *gate, const float *up, int64_t in_stride,
                     float *out, int64_t r0, int64_t r1, int64_t dim) {
  silu_mul_rows(gate, up, in_stride, out, r0, r1, dim);
}

void rope_head_avx512(float *x, const float *cos, const float *sin,
                      int64_t half) {
  rope_head(x, cos, sin, half);
}

void convert_to_f32_avx512(DType dtype, const void *src, float *dst,
                           int64_t n) {
  convert(dtype, src, dst, n);
}

void softmax_avx512(float *x, int64_t n) { softmax_impl(x, n); }

} // namespace engine::cpu_detail
