// engine/cpu/attention_amx.cpp - the attention tile on AMX, for prefill: up
// to 32 query rows against key chunks of 32, with q·kᵀ and p·v as bf16 tile
// products (fp32 accumulation) and the online softmax in fp32 AVX-512.
//
// Per chunk: keys become B tiles of pairs of dimensions (a 16×16 transpose of
// 32-bit words per 16 keys and 32 dimensions), values B tiles of pairs of
// keys (two rows interleaved), probabilities an A tile in bf16. The output
// accumulates in fp32 memory, loaded into a result tile for each product;
// rows whose running maximum grows are rescaled there first.
#include "engine/cpu/amx_tiles.h"
#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/simd_math.h"
#include "engine/cpu/transpose16.h"

#include <cmath>
#include <immintrin.h>

#define ENGINE_AMX                                                             \
  __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,"         \
                        "avx512dq,avx512bf16,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

constexpr int kRows = 32; // two A tiles of 16 query rows

// 16 floats to 16 bf16 (round to nearest even).
ENGINE_AMX inline __m256i to_bf16(__m512 v) {
  return (__m256i)_mm512_cvtneps_pbh(v);
}

ENGINE_AMX inline __m512 bf16_to_f32(__m256i v) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
}

// One cached row (fp32 or bf16) as D bf16 values.
template <DType T, int D>
ENGINE_AMX inline void load_row_bf16(const char *src, uint16_t *dst) {
  for (int c = 0; c < D; c += 16) {
    __m256i v;
    if constexpr (T == DType::F32)
      v = to_bf16(_mm512_loadu_ps(reinterpret_cast<const float *>(src) + c));
    else
      v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(
          reinterpret_cast<const uint16_t *>(src) + c));
    _mm256_store_si256(reinterpret_cast<__m256i *>(dst + c), v);
  }
}

ENGINE_AMX inline int64_t row_offset(const AttentionTile &t, int64_t pos,
                                     int64_t esize) {
  int64_t slot = int64_t(t.block_table[pos / t.block_size]) * t.block_size +
                 pos % t.block_size;
  return slot * t.token_stride * esize;
}

template <DType T, int D> ENGINE_AMX void attend(const AttentionTile &t) {
  constexpr int DB = D / 32; // dimension blocks of q·kᵀ
  constexpr int NB = D / 16; // dimension blocks of the output
  constexpr int64_t esize = T == DType::F32 ? 4 : 2;
  const int rows = t.tokens * t.group;
  const int64_t last_pos = t.first_pos + t.tokens - 1;
  const char *k_base = static_cast<const char *>(t.k);
  const char *v_base = static_cast<const char *>(t.v);

  alignas(64) uint16_t q[kRows][D];        // A tiles (rows past `rows`: 0)
  alignas(64) uint16_t krow[kKeyChunk][D]; // the chunk's keys in bf16
  alignas(64) uint16_t vrow[kKeyChunk][D];
  alignas(64) uint32_t kpack[2][DB][256]; // B tiles of kᵀ
  alignas(64) uint32_t vpack[NB][256];    // B tiles of v
  alignas(64) float s[kRows][kKeyChunk];
  alignas(64) uint16_t p[kRows][kKeyChunk]; // A tiles of probabilities
  alignas(64) float o[kRows][D];
  float m[kRows], l[kRows];

  for (int r = 0; r < kRows; ++r) {
    m[r] = -INFINITY;
    l[r] = 0;
    for (int c = 0; c < D; c += 16) {
      _mm512_store_ps(o[r] + c, _mm512_setzero_ps());
      __m256i v = _mm256_setzero_si256();
      if (r < rows)
        v = to_bf16(_mm512_loadu_ps(t.q + (r / t.group) * t.q_stride +
                                    (r % t.group) * D + c));
      _mm256_store_si256(reinterpret_cast<__m256i *>(q[r] + c), v);
    }
  }

  configure_full_tiles();

  const __m512i lane =
      _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  for (int64_t t0 = 0; t0 <= last_pos; t0 += kKeyChunk) {
    const int n =
        int(last_pos + 1 - t0 < kKeyChunk ? last_pos + 1 - t0 : kKeyChunk);
    for (int j = 0; j < kKeyChunk; ++j) {
      if (j < n) {
        int64_t off = row_offset(t, t0 + j, esize);
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
    // kᵀ: word (kk, n) of block (kb, db) is the pair of dimensions
    // db·32 + 2kk, +1 of key kb·16 + n.
    for (int kb = 0; kb < 2; ++kb)
      for (int db = 0; db < DB; ++db) {
        __m512 w[16];
        for (int i = 0; i < 16; ++i)
          w[i] = _mm512_load_ps(
              reinterpret_cast<const float *>(krow[kb * 16 + i] + db * 32));
        transpose16x16(w);
        for (int i = 0; i < 16; ++i)
          _mm512_store_ps(reinterpret_cast<float *>(kpack[kb][db] + 16 * i),
                          w[i]);
      }
    // v: word (kk, n) of block nb is the pair of keys 2kk, 2kk+1 at
    // dimension nb·16 + n.
    for (int nb = 0; nb < NB; ++nb)
      for (int kk = 0; kk < 16; ++kk) {
        __m512i a = _mm512_cvtepu16_epi32(_mm256_load_si256(
            reinterpret_cast<const __m256i *>(vrow[2 * kk] + nb * 16)));
        __m512i b = _mm512_cvtepu16_epi32(_mm256_load_si256(
            reinterpret_cast<const __m256i *>(vrow[2 * kk + 1] + nb * 16)));
        _mm512_store_si512(vpack[nb] + 16 * kk,
                           _mm512_or_si512(a, _mm512_slli_epi32(b, 16)));
      }

    // Scores: tiles 0-3 = rows {0-15, 16-31} × keys {0-15, 16-31}.
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int db = 0; db < DB; ++db) {
      _tile_loadd(4, q[0] + db * 32, D * 2);
      _tile_loadd(5, q[16] + db * 32, D * 2);
      _tile_loadd(6, kpack[0][db], 64);
      _tile_loadd(7, kpack[1][db], 64);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, s[0], kKeyChunk * 4);
    _tile_stored(1, s[0] + 16, kKeyChunk * 4);
    _tile_stored(2, s[16], kKeyChunk * 4);
    _tile_stored(3, s[16] + 16, kKeyChunk * 4);

    // Online softmax per row, as in the AVX-512 tile; the probabilities
    // are rounded to bf16 and the row sum taken over the rounded values,
    // so the weights used and the normalization agree.
    for (int r = 0; r < kRows; ++r) {
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
          to_bf16(_mm512_maskz_mov_ps(k0, exp512(_mm512_sub_ps(s0, mv))));
      __m256i b1 =
          to_bf16(_mm512_maskz_mov_ps(k1, exp512(_mm512_sub_ps(s1, mv))));
      l[r] +=
          _mm512_reduce_add_ps(_mm512_add_ps(bf16_to_f32(b0), bf16_to_f32(b1)));
      _mm512_store_si512(p[r],
                         _mm512_inserti64x4(_mm512_castsi256_si512(b0), b1, 1));
    }

    // o += p·v, 16 output dimensions at a time.
    _tile_loadd(4, p[0], kKeyChunk * 2);
    _tile_loadd(5, p[16], kKeyChunk * 2);
    for (int nb = 0; nb < NB; ++nb) {
      _tile_loadd(6, vpack[nb], 64);
      _tile_loadd(0, o[0] + nb * 16, D * 4);
      _tile_loadd(1, o[16] + nb * 16, D * 4);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 5, 6);
      _tile_stored(0, o[0] + nb * 16, D * 4);
      _tile_stored(1, o[16] + nb * 16, D * 4);
    }
  }
  _tile_release();

  for (int r = 0; r < rows; ++r) {
    __m512 inv = _mm512_set1_ps(1.0f / l[r]);
    float *dst = t.out + (r / t.group) * t.q_stride + (r % t.group) * D;
    for (int c = 0; c < D; c += 16)
      _mm512_storeu_ps(dst + c, _mm512_mul_ps(_mm512_load_ps(o[r] + c), inv));
  }
}

template <DType T> ENGINE_AMX void attend_dim(const AttentionTile &t) {
  if (t.head_dim == 64)
    attend<T, 64>(t);
  else
    attend<T, 128>(t);
}

} // namespace

bool amx_attention_supports(int head_dim, int rows) {
  return (head_dim == 64 || head_dim == 128) && rows <= kRows;
}

void attend_tile_amx(const AttentionTile &t) {
  if (t.dtype == DType::F32)
    attend_dim<DType::F32>(t);
  else
    attend_dim<DType::BF16>(t);
}

} // namespace engine::cpu_detail
