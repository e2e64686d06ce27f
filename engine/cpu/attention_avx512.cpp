// engine/cpu/attention_avx512.cpp - the AVX-512 attention tile: online
// softmax over key chunks, with keys and values held in registers while all
// rows of the tile use them.
//
// Decode reads every cached key and value of every sequence once per layer,
// so it is bound by memory. Consecutive tokens of one head lie
// num_kv_heads·head_dim apart, too far for the hardware prefetcher: a tile of
// one KV head prefetches its rows by hand, a decode tile takes several KV
// heads and so reads whole token rows.
#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/simd_math.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>

#define ENGINE_AVX512                                                          \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

// Byte offset of the cached row of position pos (same for k and v).
ENGINE_AVX512 inline int64_t row_offset(const AttentionTile &t, int64_t pos,
                                        int64_t esize) {
  int64_t slot = int64_t(t.block_table[pos / t.block_size]) * t.block_size +
                 pos % t.block_size;
  return slot * t.token_stride * esize;
}

// Decode reads each cached row once, from memory: how many key chunks ahead
// of the one being computed to prefetch (64 rows: several microseconds of
// work, well beyond the memory latency).
constexpr int kAhead = 2;

ENGINE_AVX512 inline void prefetch_row(const char *k_base, const char *v_base,
                                       int64_t offset, int64_t bytes) {
  for (int64_t b = 0; b < bytes; b += 64) {
    _mm_prefetch(k_base + offset + b, _MM_HINT_T1);
    _mm_prefetch(v_base + offset + b, _MM_HINT_T1);
  }
}

ENGINE_AVX512 inline __m512 bf16x16_to_f32(const uint16_t *p) {
  return _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(
                            reinterpret_cast<const __m256i *>(p))),
                        16));
}

// Lane j of the result is the sum of the lanes of a[j]: 16 dot products
// finished with 45 shuffles and adds instead of 16 full reductions.
ENGINE_AVX512 inline __m512 reduce16(__m512 a[16]) {
  __m512 b[8], c[4];
  for (int i = 0; i < 8; ++i)
    b[i] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]),
                         _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]));
  for (int i = 0; i < 4; ++i) {
    __m512d x = _mm512_castps_pd(b[2 * i]), y = _mm512_castps_pd(b[2 * i + 1]);
    c[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                         _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
  }
  // Now 128-bit lane l of c[i] holds partial sums of keys 4i..4i+3; add the
  // lanes up across vectors.
  __m512 d0 = _mm512_add_ps(_mm512_shuffle_f32x4(c[0], c[1], 0x88),
                            _mm512_shuffle_f32x4(c[0], c[1], 0xdd));
  __m512 d1 = _mm512_add_ps(_mm512_shuffle_f32x4(c[2], c[3], 0x88),
                            _mm512_shuffle_f32x4(c[2], c[3], 0xdd));
  return _mm512_add_ps(_mm512_shuffle_f32x4(d0, d1, 0x88),
                       _mm512_shuffle_f32x4(d0, d1, 0xdd));
}

template <DType T, int DC> ENGINE_AVX512 void attend(const AttentionTile &t) {
  constexpr int D = 16 * DC;
  constexpr int64_t esize = T == DType::F32 ? 4 : 2;
  // Rows are (token, query head) pairs; with several KV heads (decode, one
  // token) they are the query heads of all of them, head_rows per KV head.
  const int kv_heads = t.kv_heads;
  const int head_rows = t.tokens * t.group;
  const int rows = head_rows * kv_heads;
  const int per_token = kv_heads > 1 ? rows : t.group;
  const int64_t last_pos = t.first_pos + t.tokens - 1;
  // This tile's keys: all it may see, or one partition of a decode split
  // along the sequence (key_begin a multiple of kKeyChunk).
  const int64_t key_end = std::min(t.key_end, last_pos + 1);
  const char *k_base = static_cast<const char *>(t.k);
  const char *v_base = static_cast<const char *>(t.v);

  alignas(64) float o[kMaxTileRows][D];
  alignas(64) float s[kMaxTileRows][kKeyChunk];
  // The chunk's keys and values, copied (bf16: widened) once for all rows of
  // the tile. Read in place they would be num_kv_heads·head_dim apart, a
  // multiple of 4 KiB for common shapes, so all would compete for the same
  // few L1 sets.
  alignas(64) float kbuf[kKeyChunk][D];
  alignas(64) float vbuf[kKeyChunk][D];
  float m[kMaxTileRows], l[kMaxTileRows];
  for (int r = 0; r < rows; ++r) {
    m[r] = -INFINITY;
    l[r] = 0;
    for (int c = 0; c < DC; ++c)
      _mm512_store_ps(o[r] + 16 * c, _mm512_setzero_ps());
  }

  // Rows kAhead chunks ahead are prefetched into L2 one by one (the first
  // chunks of the tile up front). Only for one KV head: whole token rows
  // (several heads) are contiguous enough for the hardware prefetcher, and
  // prefetching them by hand measured slower (19 against 22 GB/s).
  const bool prefetch = kv_heads == 1;
  for (int64_t p = t.key_begin;
       prefetch && p < t.key_begin + kAhead * kKeyChunk && p < key_end; ++p)
    prefetch_row(k_base, v_base, row_offset(t, p, esize), D * esize);
  for (int64_t t0 = t.key_begin; t0 < key_end; t0 += kKeyChunk) {
    const int n = int(std::min<int64_t>(kKeyChunk, key_end - t0));
    int64_t offsets[kKeyChunk];
    for (int j = 0; j < n; ++j) {
      int64_t ahead = t0 + kAhead * kKeyChunk + j;
      if (prefetch && ahead < key_end)
        prefetch_row(k_base, v_base, row_offset(t, ahead, esize), D * esize);
      offsets[j] = row_offset(t, t0 + j, esize);
    }
    // One KV head at a time (the heads of a token are adjacent in the
    // cache).
    for (int h = 0; h < kv_heads; ++h) {
      const int r0 = h * head_rows, r1 = r0 + head_rows;
      for (int j = 0; j < n; ++j) {
        const char *ks = k_base + offsets[j] + h * D * esize;
        const char *vs = v_base + offsets[j] + h * D * esize;
        for (int c = 0; c < DC; ++c) {
          if constexpr (T == DType::F32) {
            _mm512_store_ps(
                kbuf[j] + 16 * c,
                _mm512_loadu_ps(reinterpret_cast<const float *>(ks) + 16 * c));
            _mm512_store_ps(
                vbuf[j] + 16 * c,
                _mm512_loadu_ps(reinterpret_cast<const float *>(vs) + 16 * c));
          } else {
            _mm512_store_ps(
                kbuf[j] + 16 * c,
                bf16x16_to_f32(reinterpret_cast<const uint16_t *>(ks) +
                               16 * c));
            _mm512_store_ps(
                vbuf[j] + 16 * c,
                bf16x16_to_f32(reinterpret_cast<const uint16_t *>(vs) +
                               16 * c));
          }
        }
      }

      for (int j = n; j < (n + 15) / 16 * 16; ++j)
        for (int c = 0; c < DC; ++c)
          _mm512_store_ps(kbuf[j] + 16 * c, _mm512_setzero_ps());

      // Scores, 16 keys at a time per row, q held in registers.
      for (int r = r0; r < r1; ++r) {
        const float *qr =
            t.q + (r / per_token) * t.q_stride + (r % per_token) * D;
        __m512 qv[DC];
        for (int c = 0; c < DC; ++c)
          qv[c] = _mm512_loadu_ps(qr + 16 * c);
        for (int j0 = 0; j0 < n; j0 += 16) {
          // Sixteen independent dot products (rows past n are zeros).
          __m512 acc[16];
          for (int j = 0; j < 16; ++j)
            acc[j] = _mm512_mul_ps(qv[0], _mm512_load_ps(kbuf[j0 + j]));
          for (int c = 1; c < DC; ++c)
            for (int j = 0; j < 16; ++j)
              acc[j] = _mm512_fmadd_ps(
                  qv[c], _mm512_load_ps(kbuf[j0 + j] + 16 * c), acc[j]);
          _mm512_store_ps(
              s[r] + j0, _mm512_mul_ps(reduce16(acc), _mm512_set1_ps(t.scale)));
        }
      }

      // Online softmax per row; keys past the row's position (and past the
      // chunk) get probability exactly 0.
      const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                            5, 4, 3, 2, 1, 0);
      for (int r = r0; r < r1; ++r) {
        int64_t pos = t.first_pos + r / per_token;
        int64_t visible = pos - t0 + 1; // keys of this chunk the row sees
        if (visible <= 0)
          continue;
        if (visible > n)
          visible = n;
        __mmask16 k0 =
            _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(int(visible)));
        __mmask16 k1 =
            _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(int(visible) - 16));
        __m512 s0 = _mm512_mask_load_ps(_mm512_set1_ps(-INFINITY), k0, s[r]);
        __m512 s1 =
            _mm512_mask_load_ps(_mm512_set1_ps(-INFINITY), k1, s[r] + 16);
        float mx = _mm512_reduce_max_ps(_mm512_max_ps(s0, s1));
        // Once the running maximum settles (after the first chunks) nothing
        // needs rescaling.
        float m_new = mx > m[r] ? mx : m[r];
        float alpha = m_new == m[r] ? 1.0f
                      : m[r] == -INFINITY
                          ? 0.0f
                          : _mm_cvtss_f32(_mm512_castps512_ps128(
                                exp512(_mm512_set1_ps(m[r] - m_new))));
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
          for (int c = 0; c < DC; ++c)
            acc[c] =
                _mm512_fmadd_ps(pj, _mm512_load_ps(vbuf[j] + 16 * c), acc[c]);
        }
        for (int c = 0; c < DC; ++c)
          _mm512_store_ps(o[r] + 16 * c, acc[c]);
      }
    }
  }

  // A partition leaves its rows unnormalized, with their maxima and sums,
  // for paged_attention to merge.
  if (t.partial) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < DC; ++c)
        _mm512_storeu_ps(t.partial + int64_t(r) * D + 16 * c,
                         _mm512_load_ps(o[r] + 16 * c));
    std::copy(m, m + rows, t.partial + int64_t(rows) * D);
    std::copy(l, l + rows, t.partial + int64_t(rows) * D + rows);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    __m512 inv = _mm512_set1_ps(1.0f / l[r]);
    float *dst = t.out + (r / per_token) * t.q_stride + (r % per_token) * D;
    for (int c = 0; c < DC; ++c)
      _mm512_storeu_ps(dst + 16 * c,
                       _mm512_mul_ps(_mm512_load_ps(o[r] + 16 * c), inv));
  }
}

template <DType T> ENGINE_AVX512 void attend_dim(const AttentionTile &t) {
  switch (t.head_dim) {
  case 64:
    attend<T, 4>(t);
    break;
  case 128:
    attend<T, 8>(t);
    break;
  case 256:
    attend<T, 16>(t);
    break;
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
