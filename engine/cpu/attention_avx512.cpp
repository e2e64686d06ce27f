// engine/cpu/attention_avx512.cpp - the AVX-512 attention tile: online
// softmax over key chunks, with keys and values held in registers while all
// rows of the tile use them.
//
// Decode reads every cached key and value of every sequence once per layer,
// so it is bound by memory: the next chunk's rows are prefetched into L2
// while the current one is computed (consecutive tokens of one head lie
// num_kv_heads·head_dim apart, too far for the hardware prefetcher).
#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/simd_math.h"

#include <cmath>
#include <immintrin.h>

#define ENGINE_AVX512                                                          \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

template <DType T> ENGINE_AVX512 inline __m512 load16(const void *p, int c) {
  if constexpr (T == DType::F32)
    return _mm512_loadu_ps(static_cast<const float *>(p) + 16 * c);
  else
    return _mm512_castsi512_ps(_mm512_slli_epi32(
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(static_cast<const uint16_t *>(p) +
                                              16 * c))),
        16));
}

// Byte offset of the cached row of position pos (same for k and v).
template <DType T>
ENGINE_AVX512 inline int64_t row_offset(const AttentionTile &t, int64_t pos) {
  int64_t slot = int64_t(t.block_table[pos / t.block_size]) * t.block_size +
                 pos % t.block_size;
  constexpr int64_t size = T == DType::F32 ? 4 : 2;
  return slot * t.token_stride * size;
}

template <DType T, int DC>
ENGINE_AVX512 void attend(const AttentionTile &t) {
  constexpr int D = 16 * DC;
  constexpr int64_t esize = T == DType::F32 ? 4 : 2;
  const int rows = t.tokens * t.group;
  const int64_t last_pos = t.first_pos + t.tokens - 1;
  const char *k_base = static_cast<const char *>(t.k);
  const char *v_base = static_cast<const char *>(t.v);

  alignas(64) float o[kMaxTileRows][D];
  alignas(64) float s[kMaxTileRows][kKeyChunk];
  float m[kMaxTileRows], l[kMaxTileRows];
  int64_t keys[kKeyChunk], next[kKeyChunk];
  for (int r = 0; r < rows; ++r) {
    m[r] = -INFINITY;
    l[r] = 0;
    for (int c = 0; c < DC; ++c)
      _mm512_store_ps(o[r] + 16 * c, _mm512_setzero_ps());
  }
  auto q_row = [&](int r) {
    return t.q + (r / t.group) * t.q_stride + (r % t.group) * D;
  };

  int n_next = 0;
  for (int64_t p = 0; p < kKeyChunk && p <= last_pos; ++p, ++n_next)
    next[p] = row_offset<T>(t, p);
  for (int64_t t0 = 0; t0 <= last_pos; t0 += kKeyChunk) {
    const int n = n_next;
    for (int j = 0; j < n; ++j)
      keys[j] = next[j];
    // Prefetch the next chunk's keys and values into L2.
    n_next = 0;
    for (int64_t p = t0 + kKeyChunk; p < t0 + 2 * kKeyChunk && p <= last_pos;
         ++p) {
      int64_t off = row_offset<T>(t, p);
      next[n_next++] = off;
      for (int64_t b = 0; b < D * esize; b += 64) {
        _mm_prefetch(k_base + off + b, _MM_HINT_T1);
        _mm_prefetch(v_base + off + b, _MM_HINT_T1);
      }
    }

    // Scores: each key row stays in registers for all rows of the tile.
    for (int j = 0; j < n; ++j) {
      __m512 kv[DC];
      for (int c = 0; c < DC; ++c)
        kv[c] = load16<T>(k_base + keys[j], c);
      for (int r = 0; r < rows; ++r) {
        const float *qr = q_row(r);
        __m512 acc = _mm512_mul_ps(_mm512_loadu_ps(qr), kv[0]);
        for (int c = 1; c < DC; ++c)
          acc = _mm512_fmadd_ps(_mm512_loadu_ps(qr + 16 * c), kv[c], acc);
        s[r][j] = _mm512_reduce_add_ps(acc) * t.scale;
      }
    }

    // Online softmax per row; keys past the row's position (and past the
    // chunk) get probability exactly 0.
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                          5, 4, 3, 2, 1, 0);
    for (int r = 0; r < rows; ++r) {
      int64_t pos = t.first_pos + r / t.group;
      int64_t visible = pos - t0 + 1; // keys of this chunk the row sees
      if (visible <= 0)
        continue;
      if (visible > n)
        visible = n;
      __mmask16 k0 = _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(int(visible)));
      __mmask16 k1 =
          _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(int(visible) - 16));
      __m512 s0 = _mm512_mask_load_ps(_mm512_set1_ps(-INFINITY), k0, s[r]);
      __m512 s1 = _mm512_mask_load_ps(_mm512_set1_ps(-INFINITY), k1, s[r] + 16);
      float mx = _mm512_reduce_max_ps(_mm512_max_ps(s0, s1));
      float m_new = mx > m[r] ? mx : m[r];
      float alpha = m[r] == -INFINITY ? 0.0f : std::exp(m[r] - m_new);
      __m512 mv = _mm512_set1_ps(m_new);
      __m512 p0 = _mm512_maskz_mov_ps(k0, exp512(_mm512_sub_ps(s0, mv)));
      __m512 p1 = _mm512_maskz_mov_ps(k1, exp512(_mm512_sub_ps(s1, mv)));
      l[r] = l[r] * alpha + _mm512_reduce_add_ps(_mm512_add_ps(p0, p1));
      m[r] = m_new;
      _mm512_store_ps(s[r], p0);
      _mm512_store_ps(s[r] + 16, p1);

      __m512 acc[DC];
      __m512 av = _mm512_set1_ps(alpha);
      for (int c = 0; c < DC; ++c)
        acc[c] = _mm512_mul_ps(_mm512_load_ps(o[r] + 16 * c), av);
      for (int j = 0; j < visible; ++j) {
        __m512 pj = _mm512_set1_ps(s[r][j]);
        const char *vj = v_base + keys[j];
        for (int c = 0; c < DC; ++c)
          acc[c] = _mm512_fmadd_ps(pj, load16<T>(vj, c), acc[c]);
      }
      for (int c = 0; c < DC; ++c)
        _mm512_store_ps(o[r] + 16 * c, acc[c]);
    }
  }

  for (int r = 0; r < rows; ++r) {
    __m512 inv = _mm512_set1_ps(1.0f / l[r]);
    float *dst = t.out + (r / t.group) * t.q_stride + (r % t.group) * D;
    for (int c = 0; c < DC; ++c)
      _mm512_storeu_ps(dst + 16 * c,
                       _mm512_mul_ps(_mm512_load_ps(o[r] + 16 * c), inv));
  }
}

template <DType T> ENGINE_AVX512 void attend_dim(const AttentionTile &t) {
  switch (t.head_dim) {
  case 64: attend<T, 4>(t); break;
  case 128: attend<T, 8>(t); break;
  case 256: attend<T, 16>(t); break;
  }
}

} // namespace

bool avx512_supports_head_dim(int head_dim) {
  return head_dim == 64 || head_dim == 128 || head_dim == 256;
}

void attend_tile_avx512(const AttentionTile &t) {
  if (t.dtype == DType::F32)
    attend_dim<DType::F32>(t);
  else
    attend_dim<DType::BF16>(t);
}

} // namespace engine::cpu_detail
