// engine/cpu/attention_avx2.cpp - the attention tile at the avx2 level: the
// portable tile's algorithm (chunks of kKeyChunk keys from position 0,
// online softmax, each query row on its own) with its two inner products,
// q·k over the head dimension and p·v into the output row, eight lanes at a
// time. Without it, CPUs with AVX2 but no AVX-512 ran attention in plain
// C++: on a Zen 3 it took 70% of pp512's time (20 s against 8.6 s for every
// matmul, perfcc's summary of engine-bench).
#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/avx2_math.h"
#include "engine/cpu/scratch_buffer.h"

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

// ---- Decode: one query token, all its heads of one or more KV heads ----
//
// The tile above computes each query row on its own: per key a 16-FMA chain
// and a horizontal sum for q·k, a scalar exp, and the key and value widened
// again for every query head that shares them. On a Zen 3, 16 sequences of
// 600 positions ran at 3-4 GB/s against the 20 GB/s the cache could be read
// at. Here a chunk's keys and values are copied once, as whole token rows of
// all the tile's KV heads (see below), the query heads of a KV head (a
// sub-group of up to four) share each widened key and value vector; q·k runs
// several keys at once, each its own chain, their sums reduced eight keys at a
// time; and the softmax is vectorized (exp256). Every query row's arithmetic is
// the same whatever the tile holds, so a sequence decodes alike alone and in a
// batch.

// Sub-groups of query heads sharing a widened vector, and how many keys
// (q·k) or output vectors (p·v) each takes at once: 8 accumulators.
template <int SG> constexpr int kKeysAtOnce = SG == 1 ? 8 : SG == 2 ? 4 : 2;
template <int SG> constexpr int kVectorsAtOnce = SG == 1 ? 8 : SG == 2 ? 4 : 2;

int sub_group_of(int group) {
  for (int sg = 4; sg >= 1; --sg)
    if (group % sg == 0)
      return sg;
  return 1;
}

template <int SG> constexpr int kDimMultiple = 8 * kVectorsAtOnce<SG>;

// Scores of rows q[0..SG) (scaled, contiguous, d apart) against keys
// kbuf[0, n) (fp32, `stride` apart): raw vectors into vec[g][j] (the lanes
// still to be summed), n rounded up to 8 with zeros.
template <int SG>
ENGINE_AVX2 void score_vectors(const float *q, int d, const float *kbuf,
                               int64_t stride, int n,
                               __m256 (*vec)[kKeyChunk]) {
  constexpr int KB = kKeysAtOnce<SG>;
  int j = 0;
  for (; j < n; j += KB) {
    const int keys = std::min(KB, n - j);
    __m256 acc[SG][KB];
    for (int g = 0; g < SG; ++g)
      for (int b = 0; b < KB; ++b)
        acc[g][b] = _mm256_setzero_ps();
    if (keys == KB) {
      for (int c = 0; c < d; c += 8)
        for (int b = 0; b < KB; ++b) {
          const __m256 kv = _mm256_load_ps(kbuf + (j + b) * stride + c);
          for (int g = 0; g < SG; ++g)
            acc[g][b] =
                _mm256_fmadd_ps(_mm256_loadu_ps(q + g * d + c), kv, acc[g][b]);
        }
    } else {
      for (int b = 0; b < keys; ++b)
        for (int c = 0; c < d; c += 8) {
          const __m256 kv = _mm256_load_ps(kbuf + (j + b) * stride + c);
          for (int g = 0; g < SG; ++g)
            acc[g][b] =
                _mm256_fmadd_ps(_mm256_loadu_ps(q + g * d + c), kv, acc[g][b]);
        }
    }
    // j is a multiple of KB, which divides kKeyChunk: j + b stays inside.
    for (int g = 0; g < SG; ++g)
      for (int b = 0; b < KB; ++b)
        vec[g][j + b] = acc[g][b];
  }
  for (int g = 0; g < SG; ++g)
    for (int z = n; z < (n + 7) / 8 * 8; ++z)
      vec[g][z] = _mm256_setzero_ps();
}

// o[g] = o[g]·alpha[g] + Σ_j p[g][j]·vbuf[j] for rows [0, SG), d apart
// (vbuf's `stride` apart).
template <int SG>
ENGINE_AVX2 void
accumulate_values(float *o, int d, const float *vbuf, int64_t stride, int n,
                  const float (*p)[kKeyChunk], const float *alpha) {
  constexpr int CC = kVectorsAtOnce<SG>;
  for (int c = 0; c < d; c += 8 * CC) {
    __m256 acc[SG][CC];
    for (int g = 0; g < SG; ++g) {
      const __m256 a = _mm256_set1_ps(alpha[g]);
      for (int u = 0; u < CC; ++u)
        acc[g][u] = _mm256_mul_ps(_mm256_loadu_ps(o + g * d + c + 8 * u), a);
    }
    for (int j = 0; j < n; ++j) {
      __m256 pj[SG];
      for (int g = 0; g < SG; ++g)
        pj[g] = _mm256_broadcast_ss(&p[g][j]);
      for (int u = 0; u < CC; ++u) {
        const __m256 vv = _mm256_load_ps(vbuf + j * stride + c + 8 * u);
        for (int g = 0; g < SG; ++g)
          acc[g][u] = _mm256_fmadd_ps(pj[g], vv, acc[g][u]);
      }
    }
    for (int g = 0; g < SG; ++g)
      for (int u = 0; u < CC; ++u)
        _mm256_storeu_ps(o + g * d + c + 8 * u, acc[g][u]);
  }
}

template <int SG> ENGINE_AVX2 void decode_tile(const AttentionTile &t) {
  const int d = t.head_dim, heads = t.kv_heads, group = t.group;
  const int rows = group * heads;
  const bool bf16 = t.dtype == DType::BF16;
  const int64_t esize = bf16 ? 2 : 4, last_pos = t.first_pos;
  const char *k_base = static_cast<const char *>(t.k);
  const char *v_base = static_cast<const char *>(t.v);
  thread_local std::vector<float> qs, o;
  thread_local ScratchBuffer kbuf_buffer, vbuf_buffer;
  const int row = heads * d; // floats of one token's heads in the buffers
  float *kbuf = kbuf_buffer.get<float>(size_t(kKeyChunk) * row);
  float *vbuf = vbuf_buffer.get<float>(size_t(kKeyChunk) * row);
  qs.resize(size_t(rows) * d);
  o.assign(size_t(rows) * d, 0.0f);
  // The scale folded into q once.
  const __m256 scale = _mm256_set1_ps(t.scale);
  for (int i = 0; i < rows * d; i += 8)
    _mm256_storeu_ps(qs.data() + i,
                     _mm256_mul_ps(_mm256_loadu_ps(t.q + i), scale));
  float m[kMaxTileRows], l[kMaxTileRows];
  std::fill(m, m + rows, -INFINITY);
  std::fill(l, l + rows, 0.0f);
  alignas(32) __m256 vec[SG][kKeyChunk];
  alignas(32) float p[SG][kKeyChunk];
  int64_t offsets[kKeyChunk];
  auto row_offset = [&](int64_t pos) {
    return (int64_t(t.block_table[pos / t.block_size]) * t.block_size +
            pos % t.block_size) *
           t.token_stride * esize;
  };
  // Rows `ahead` chunks on are prefetched into L2 while a chunk is computed
  // (memory would otherwise idle then): two chunks of one head's pieces, or
  // the next chunk of whole token rows.
  const int ahead = heads == 1 ? 2 : 1;
  auto prefetch_position = [&](int64_t pos) {
    const int64_t at = row_offset(pos);
    for (int64_t b = 0; b < row * esize; b += 64) {
      _mm_prefetch(k_base + at + b, _MM_HINT_T1);
      _mm_prefetch(v_base + at + b, _MM_HINT_T1);
    }
  };
  // This tile's keys: all it may see, or one partition of them.
  const int64_t key_end = std::min(t.key_end, last_pos + 1);
  for (int64_t pos = t.key_begin;
       pos < t.key_begin + ahead * kKeyChunk && pos < key_end; ++pos)
    prefetch_position(pos);
  for (int64_t t0 = t.key_begin; t0 < key_end; t0 += kKeyChunk) {
    const int n = int(std::min<int64_t>(kKeyChunk, key_end - t0));
    for (int j = 0; j < n; ++j) {
      if (t0 + ahead * kKeyChunk + j < key_end)
        prefetch_position(t0 + ahead * kKeyChunk + j);
      offsets[j] = row_offset(t0 + j);
    }
    // The chunk's keys and values of every head of the tile, widened to
    // fp32 once for all their query heads. Whole token rows of several heads
    // are contiguous, a stream the hardware prefetcher follows; read head by
    // head, 256-byte pieces 2 KiB apart, the loads waited on memory (3.6
    // GB/s on one thread).
    for (int j = 0; j < n; ++j)
      for (int c = 0; c < row; c += 8) {
        _mm256_store_ps(kbuf + j * row + c,
                        load8(k_base + offsets[j], bf16, c));
        _mm256_store_ps(vbuf + j * row + c,
                        load8(v_base + offsets[j], bf16, c));
      }
    for (int h = 0; h < heads; ++h) {
      for (int r0 = h * group; r0 < (h + 1) * group; r0 += SG) {
        score_vectors<SG>(qs.data() + r0 * d, d, kbuf + h * d, row, n, vec);
        float alpha[SG];
        for (int g = 0; g < SG; ++g) {
          // Eight keys' sums at once; past n, -inf (weight 0).
          __m256 mx = _mm256_set1_ps(-INFINITY);
          for (int j = 0; j < n; j += 8) {
            __m256 sv = hsum8(vec[g] + j);
            if (n - j < 8) {
              const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
              const __m256 valid = _mm256_castsi256_ps(
                  _mm256_cmpgt_epi32(_mm256_set1_epi32(n - j), lanes));
              sv = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), sv, valid);
            }
            _mm256_store_ps(p[g] + j, sv);
            mx = _mm256_max_ps(mx, sv);
          }
          const int r = r0 + g;
          const float m_new = std::max(m[r], hmax(mx));
          alpha[g] = m[r] == -INFINITY ? 0.0f : std::exp(m[r] - m_new);
          const __m256 mv = _mm256_set1_ps(m_new);
          __m256 sum = _mm256_setzero_ps();
          for (int j = 0; j < n; j += 8) {
            const __m256 e =
                exp256(_mm256_sub_ps(_mm256_load_ps(p[g] + j), mv));
            _mm256_store_ps(p[g] + j, e);
            sum = _mm256_add_ps(sum, e);
          }
          l[r] = l[r] * alpha[g] + hsum(sum);
          m[r] = m_new;
        }
        accumulate_values<SG>(o.data() + r0 * d, d, vbuf + h * d, row, n, p,
                              alpha);
      }
    }
  }
  if (t.partial) {
    std::copy(o.begin(), o.end(), t.partial);
    std::copy(m, m + rows, t.partial + rows * d);
    std::copy(l, l + rows, t.partial + rows * d + rows);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const __m256 inv = _mm256_set1_ps(1.0f / l[r]);
    for (int c = 0; c < d; c += 8)
      _mm256_storeu_ps(
          t.out + r * d + c,
          _mm256_mul_ps(_mm256_loadu_ps(o.data() + r * d + c), inv));
  }
}

} // namespace

bool avx2_decode_supports(int head_dim, int group) {
  switch (sub_group_of(group)) {
  case 1:
    return head_dim % kDimMultiple<1> == 0;
  case 2:
    return head_dim % kDimMultiple<2> == 0;
  default:
    return head_dim % kDimMultiple<4> == 0;
  }
}

void attend_decode_avx2(const AttentionTile &t) {
  switch (sub_group_of(t.group)) {
  case 4:
    return decode_tile<4>(t);
  case 3:
    return decode_tile<3>(t);
  case 2:
    return decode_tile<2>(t);
  default:
    return decode_tile<1>(t);
  }
}

bool avx2_attention_supports_head_dim(int head_dim) {
  return head_dim >= 8 && head_dim % 8 == 0;
}

void attend_tile_avx2(const AttentionTile &t) { tile(t); }

} // namespace engine::cpu_detail
