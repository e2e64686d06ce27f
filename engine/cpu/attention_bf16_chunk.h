// engine/cpu/attention_bf16_chunk.h - what the two bf16-product prefill
// tiles (attention_amx.cpp, attention_avx512bf16.cpp) do alike with one
// chunk of keys (internal to engine/cpu): its keys and values read as bf16
// and packed in pairs, as `dpbf16ps` wants them, and the online softmax that
// turns its scores into bf16 probabilities.
//
// Packing: a dot product step of `dpbf16ps` multiplies pairs of bf16 values
// held in one 32-bit word. For q·kᵀ the pairs run along the dimensions: word
// (kk, n) of kpack[kb][db] holds dimensions db·32 + 2kk and +1 of key
// kb·16 + n. For p·v they run along the keys: word (kk, n) of vpack[nb]
// holds keys 2kk and 2kk + 1 at dimension nb·16 + n.
//
// Include only from files whose kernels carry an AVX512-BF16 target (or a
// superset, as AMX's does): these functions are inlined into them.
#pragma once

#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/simd_math.h"
#include "engine/cpu/transpose16.h"

#include <cmath>
#include <cstdint>
#include <immintrin.h>

#define ENGINE_BF16_CHUNK                                                      \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,"  \
                        "fma,f16c")))

namespace engine::cpu_detail {

/// Query rows a bf16 prefill tile holds: two groups of 16
/// (bf16_tile_supports).
constexpr int kBf16TileRows = 32;
static_assert(bf16_tile_supports(128, kBf16TileRows) &&
              !bf16_tile_supports(128, kBf16TileRows + 1));

/// 16 floats to 16 bf16 (round to nearest even).
ENGINE_BF16_CHUNK inline __m256i chunk_to_bf16(__m512 v) {
  return (__m256i)_mm512_cvtneps_pbh(v);
}

ENGINE_BF16_CHUNK inline __m512 chunk_bf16_to_f32(__m256i v) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
}

/// Byte offset of the cached row of position pos (same for k and v).
ENGINE_BF16_CHUNK inline int64_t chunk_row_offset(const AttentionTile &t,
                                                  int64_t pos, int64_t esize) {
  int64_t slot = int64_t(t.block_table[pos / t.block_size]) * t.block_size +
                 pos % t.block_size;
  return slot * t.token_stride * esize;
}

/// One cached row (fp32 or bf16) as D bf16 values.
template <DType T, int D>
ENGINE_BF16_CHUNK inline void load_row_bf16(const char *src, uint16_t *dst) {
  for (int c = 0; c < D; c += 16) {
    __m256i v;
    if constexpr (T == DType::F32)
      v = chunk_to_bf16(
          _mm512_loadu_ps(reinterpret_cast<const float *>(src) + c));
    else
      v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(
          reinterpret_cast<const uint16_t *>(src) + c));
    _mm256_store_si256(reinterpret_cast<__m256i *>(dst + c), v);
  }
}

/// A tile's start: its q rows in bf16 (rows past `rows`: zeros), outputs
/// and sums 0, running maxima -inf.
template <int D>
ENGINE_BF16_CHUNK inline void
start_tile(const AttentionTile &t, int rows, uint16_t q[kBf16TileRows][D],
           float o[kBf16TileRows][D], float m[kBf16TileRows],
           float l[kBf16TileRows]) {
  for (int r = 0; r < kBf16TileRows; ++r) {
    m[r] = -INFINITY;
    l[r] = 0;
    for (int c = 0; c < D; c += 16)
      _mm512_store_ps(o[r] + c, _mm512_setzero_ps());
  }
  for (int r = 0; r < kBf16TileRows; ++r)
    for (int c = 0; c < D; c += 16) {
      __m256i v = _mm256_setzero_si256();
      if (r < rows)
        v = chunk_to_bf16(_mm512_loadu_ps(t.q + (r / t.group) * t.q_stride +
                                          (r % t.group) * D + c));
      _mm256_store_si256(reinterpret_cast<__m256i *>(q[r] + c), v);
    }
}

/// The chunk of n keys from position t0, keys and values in bf16 (keys past
/// n: zeros), packed for the products (see the file comment).
template <DType T, int D>
ENGINE_BF16_CHUNK inline void
pack_chunk(const AttentionTile &t, int64_t t0, int n,
           uint16_t krow[kKeyChunk][D], uint16_t vrow[kKeyChunk][D],
           uint32_t kpack[2][D / 32][256], uint32_t vpack[D / 16][256]) {
  constexpr int64_t esize = T == DType::F32 ? 4 : 2;
  const char *k_base = static_cast<const char *>(t.k);
  const char *v_base = static_cast<const char *>(t.v);
  for (int j = 0; j < kKeyChunk; ++j) {
    if (j < n) {
      int64_t off = chunk_row_offset(t, t0 + j, esize);
      load_row_bf16<T, D>(k_base + off, krow[j]);
      load_row_bf16<T, D>(v_base + off, vrow[j]);
    } else {
      for (int c = 0; c < D; c += 16) {
        _mm256_store_si256(reinterpret_cast<__m256i *>(krow[j] + c),
                           _mm256_setzero_si256());
        _mm256_store_si256(reinterpret_cast<__m256i *>(vrow[j] + c),
                           _mm256_setzero_si256());
      }
    }
  }
  for (int kb = 0; kb < 2; ++kb)
    for (int db = 0; db < D / 32; ++db) {
      __m512 w[16];
      for (int i = 0; i < 16; ++i)
        w[i] = _mm512_load_ps(
            reinterpret_cast<const float *>(krow[kb * 16 + i] + db * 32));
      transpose16x16(w);
      for (int i = 0; i < 16; ++i)
        _mm512_store_ps(reinterpret_cast<float *>(kpack[kb][db] + 16 * i),
                        w[i]);
    }
  for (int nb = 0; nb < D / 16; ++nb)
    for (int kk = 0; kk < 16; ++kk) {
      __m512i a = _mm512_cvtepu16_epi32(_mm256_load_si256(
          reinterpret_cast<const __m256i *>(vrow[2 * kk] + nb * 16)));
      __m512i b = _mm512_cvtepu16_epi32(_mm256_load_si256(
          reinterpret_cast<const __m256i *>(vrow[2 * kk + 1] + nb * 16)));
      _mm512_store_si512(vpack[nb] + 16 * kk,
                         _mm512_or_si512(a, _mm512_slli_epi32(b, 16)));
    }
}

/// The online softmax of one chunk, row by row: s holds the unscaled scores
/// of the chunk's keys (row r, key j); keys past the row's position or past
/// n get probability exactly 0. Rows whose running maximum m grows have
/// their output o and sum l rescaled. The probabilities are rounded to bf16
/// into p, and the row sum taken over the rounded values, so the weights
/// used and the normalization agree.
template <int D>
ENGINE_BF16_CHUNK inline void
softmax_chunk(const AttentionTile &t, int rows, int64_t t0, int n,
              const float s[kBf16TileRows][kKeyChunk],
              uint16_t p[kBf16TileRows][kKeyChunk], float o[kBf16TileRows][D],
              float m[kBf16TileRows], float l[kBf16TileRows]) {
  const __m512i lane =
      _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  for (int r = 0; r < kBf16TileRows; ++r) {
    int64_t seen = r < rows ? t.first_pos + r / t.group - t0 + 1 : 0;
    int visible = int(seen < 0 ? 0 : seen > n ? n : seen);
    if (visible == 0) {
      _mm512_store_si512(p[r], _mm512_setzero_si512());
      continue;
    }
    __mmask16 k0 = _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(visible));
    __mmask16 k1 =
        _mm512_cmplt_epi32_mask(lane, _mm512_set1_epi32(visible - 16));
    __m512 sc = _mm512_set1_ps(t.scale);
    __m512 s0 = _mm512_mask_mul_ps(_mm512_set1_ps(-INFINITY), k0,
                                   _mm512_load_ps(s[r]), sc);
    __m512 s1 = _mm512_mask_mul_ps(_mm512_set1_ps(-INFINITY), k1,
                                   _mm512_load_ps(s[r] + 16), sc);
    float mx = _mm512_reduce_max_ps(_mm512_max_ps(s0, s1));
    float m_new = mx > m[r] ? mx : m[r];
    if (m_new != m[r] && m[r] != -INFINITY) {
      __m512 alpha = exp512(_mm512_set1_ps(m[r] - m_new));
      l[r] *= _mm_cvtss_f32(_mm512_castps512_ps128(alpha));
      for (int c = 0; c < D; c += 16)
        _mm512_store_ps(o[r] + c,
                        _mm512_mul_ps(_mm512_load_ps(o[r] + c), alpha));
    }
    m[r] = m_new;
    __m512 mv = _mm512_set1_ps(m_new);
    __m256i b0 =
        chunk_to_bf16(_mm512_maskz_mov_ps(k0, exp512(_mm512_sub_ps(s0, mv))));
    __m256i b1 =
        chunk_to_bf16(_mm512_maskz_mov_ps(k1, exp512(_mm512_sub_ps(s1, mv))));
    l[r] += _mm512_reduce_add_ps(
        _mm512_add_ps(chunk_bf16_to_f32(b0), chunk_bf16_to_f32(b1)));
    _mm512_store_si512(p[r],
                       _mm512_inserti64x4(_mm512_castsi256_si512(b0), b1, 1));
  }
}

/// out = o / l for the tile's rows.
template <int D>
ENGINE_BF16_CHUNK inline void write_rows(const AttentionTile &t, int rows,
                                         const float o[kBf16TileRows][D],
                                         const float l[kBf16TileRows]) {
  for (int r = 0; r < rows; ++r) {
    __m512 inv = _mm512_set1_ps(1.0f / l[r]);
    float *dst = t.out + (r / t.group) * t.q_stride + (r % t.group) * D;
    for (int c = 0; c < D; c += 16)
      _mm512_storeu_ps(dst + c, _mm512_mul_ps(_mm512_load_ps(o[r] + c), inv));
  }
}

} // namespace engine::cpu_detail
