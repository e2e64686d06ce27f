// engine/cpu/attention_avx2.cpp - the attention tile at the avx2 level: the
// portable tile's algorithm (chunks of kKeyChunk keys from position 0,
// online softmax, each query row on its own) with its two inner products,
// q·k over the head dimension and p·v into the output row, eight lanes at a
// time. Without it, CPUs with AVX2 but no AVX-512 ran attention in plain
// C++: on a Zen 3 it took 70% of pp512's time (20 s against 8.6 s for every
// matmul, perfcc's summary of engine-bench).
#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/avx2_math.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>
#include <vector>

#define ENGINE_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

ENGINE_AVX2 inline __m256 load8(const void *base, bool bf16, int64_t at) {
  return bf16 ? load_bf16x8(static_cast<const uint16_t *>(base) + at)
              : _mm256_loadu_ps(static_cast<const float *>(base) + at);
}

ENGINE_AVX2 void tile(const AttentionTile &t) {
  const int rows = t.tokens * t.group, d = t.head_dim;
  const bool bf16 = t.dtype == DType::BF16;
  const int64_t last_pos = t.first_pos + t.tokens - 1;
  thread_local std::vector<float> o, m, l;
  o.assign(size_t(rows) * d, 0.0f);
  m.assign(size_t(rows), -INFINITY);
  l.assign(size_t(rows), 0.0f);
  float s[kKeyChunk];
  int64_t offsets[kKeyChunk];
  for (int64_t t0 = 0; t0 <= last_pos; t0 += kKeyChunk) {
    const int n = int(std::min<int64_t>(kKeyChunk, last_pos + 1 - t0));
    for (int j = 0; j < n; ++j) {
      const int64_t p = t0 + j;
      offsets[j] = (int64_t(t.block_table[p / t.block_size]) * t.block_size +
                    p % t.block_size) *
                   t.token_stride;
    }
    for (int r = 0; r < rows; ++r) {
      const float *q = t.q + (r / t.group) * t.q_stride + (r % t.group) * d;
      const int64_t visible =
          std::min<int64_t>(n, t.first_pos + r / t.group - t0 + 1);
      if (visible <= 0)
        continue;
      float mx = -INFINITY;
      for (int j = 0; j < visible; ++j) {
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        int c = 0;
        for (; c + 16 <= d; c += 16) {
          a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + c),
                               load8(t.k, bf16, offsets[j] + c), a0);
          a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + c + 8),
                               load8(t.k, bf16, offsets[j] + c + 8), a1);
        }
        if (c < d) // d is a multiple of 8
          a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + c),
                               load8(t.k, bf16, offsets[j] + c), a0);
        s[j] = hsum(_mm256_add_ps(a0, a1)) * t.scale;
        mx = std::max(mx, s[j]);
      }
      const float m_new = std::max(mx, m[r]);
      const float alpha = m[r] == -INFINITY ? 0.0f : std::exp(m[r] - m_new);
      float sum = 0;
      for (int j = 0; j < visible; ++j)
        sum += s[j] = std::exp(s[j] - m_new);
      l[r] = l[r] * alpha + sum;
      m[r] = m_new;
      float *orow = o.data() + size_t(r) * d;
      const __m256 va = _mm256_set1_ps(alpha);
      for (int c = 0; c < d; c += 8) {
        __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(orow + c), va);
        for (int j = 0; j < visible; ++j)
          acc = _mm256_fmadd_ps(_mm256_set1_ps(s[j]),
                                load8(t.v, bf16, offsets[j] + c), acc);
        _mm256_storeu_ps(orow + c, acc);
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
    float *dst = t.out + (r / t.group) * t.q_stride + (r % t.group) * d;
    const __m256 inv = _mm256_set1_ps(1.0f / l[r]);
    for (int c = 0; c < d; c += 8)
      _mm256_storeu_ps(
          dst + c, _mm256_mul_ps(_mm256_loadu_ps(o.data() + r * d + c), inv));
  }
}

} // namespace

bool avx2_attention_supports_head_dim(int head_dim) {
  return head_dim >= 8 && head_dim % 8 == 0;
}

void attend_tile_avx2(const AttentionTile &t) { tile(t); }

} // namespace engine::cpu_detail
