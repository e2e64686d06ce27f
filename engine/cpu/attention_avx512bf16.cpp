// engine/cpu/attention_avx512bf16.cpp - the prefill attention tile with
// AVX512-BF16 dot products, for CPUs that have them but no AMX (AMD Zen 4
// and later): the AMX tile's algorithm, packing and rounding
// (attention_bf16_chunk.h), each tile product done with `vdpbf16ps` on
// registers: one operand's bf16 pair broadcast against 16 packed words of
// the other, so that no sum has to be reduced across lanes.
//
// Why: the fp32 tile (attention_avx512.cpp) multiplies with FMAs at half the
// rate of `vdpbf16ps` and finishes each dot product with a 16-way reduction;
// it took 15% of a 512-token prefill on the Zen 4 (about 125 GFLOP/s of q·k
// and p·v where the machine's bf16 peak is 460).
#include "engine/cpu/attention_bf16_chunk.h"
#include "engine/cpu/attention_kernels.h"

#include <immintrin.h>

#define ENGINE_AVX512BF16                                                      \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,"  \
                        "fma,f16c")))

namespace engine::cpu_detail {
namespace {

constexpr int kRows = kBf16TileRows;

ENGINE_AVX512BF16 inline __m512bh pair(uint32_t word) {
  return (__m512bh)_mm512_set1_epi32(int(word));
}

ENGINE_AVX512BF16 inline __m512bh words(const uint32_t *p) {
  return (__m512bh)_mm512_load_si512(p);
}

// Scores of four query rows from r0 against the chunk's 32 keys, unscaled:
// lane n of acc[i][kb] is row r0 + i against key kb·16 + n.
template <int D>
ENGINE_AVX512BF16 inline void scores4(const uint16_t q[kRows][D], int r0,
                                      const uint32_t kpack[2][D / 32][256],
                                      float s[kRows][kKeyChunk]) {
  __m512 acc[4][2];
  for (int i = 0; i < 4; ++i)
    acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  const uint32_t *qw[4];
  for (int i = 0; i < 4; ++i)
    qw[i] = reinterpret_cast<const uint32_t *>(q[r0 + i]);
  for (int db = 0; db < D / 32; ++db)
    for (int kk = 0; kk < 16; ++kk) {
      const __m512bh k0 = words(kpack[0][db] + 16 * kk);
      const __m512bh k1 = words(kpack[1][db] + 16 * kk);
      for (int i = 0; i < 4; ++i) {
        const __m512bh qb = pair(qw[i][db * 16 + kk]);
        acc[i][0] = _mm512_dpbf16_ps(acc[i][0], qb, k0);
        acc[i][1] = _mm512_dpbf16_ps(acc[i][1], qb, k1);
      }
    }
  for (int i = 0; i < 4; ++i) {
    _mm512_store_ps(s[r0 + i], acc[i][0]);
    _mm512_store_ps(s[r0 + i] + 16, acc[i][1]);
  }
}

// o += p·v for two rows from r0, over the first `pairs` pairs of keys (the
// rest have probability 0).
template <int D>
ENGINE_AVX512BF16 inline void
accumulate2(const uint16_t p[kRows][kKeyChunk], int r0, int pairs,
            const uint32_t vpack[D / 16][256], float o[kRows][D]) {
  constexpr int NB = D / 16;
  __m512 acc[2][NB];
  for (int i = 0; i < 2; ++i)
    for (int nb = 0; nb < NB; ++nb)
      acc[i][nb] = _mm512_load_ps(o[r0 + i] + 16 * nb);
  const uint32_t *p0 = reinterpret_cast<const uint32_t *>(p[r0]);
  const uint32_t *p1 = reinterpret_cast<const uint32_t *>(p[r0 + 1]);
  for (int kk = 0; kk < pairs; ++kk) {
    const __m512bh a = pair(p0[kk]), b = pair(p1[kk]);
    for (int nb = 0; nb < NB; ++nb) {
      const __m512bh v = words(vpack[nb] + 16 * kk);
      acc[0][nb] = _mm512_dpbf16_ps(acc[0][nb], a, v);
      acc[1][nb] = _mm512_dpbf16_ps(acc[1][nb], b, v);
    }
  }
  for (int i = 0; i < 2; ++i)
    for (int nb = 0; nb < NB; ++nb)
      _mm512_store_ps(o[r0 + i] + 16 * nb, acc[i][nb]);
}

template <DType T, int D>
ENGINE_AVX512BF16 void attend(const AttentionTile &t) {
  const int rows = t.tokens * t.group;
  const int64_t last_pos = t.first_pos + t.tokens - 1;

  alignas(64) uint16_t q[kRows][D]; // rows past `rows`: 0
  alignas(64) uint16_t krow[kKeyChunk][D];
  alignas(64) uint16_t vrow[kKeyChunk][D];
  alignas(64) uint32_t kpack[2][D / 32][256];
  alignas(64) uint32_t vpack[D / 16][256];
  alignas(64) float s[kRows][kKeyChunk];
  alignas(64) uint16_t p[kRows][kKeyChunk];
  alignas(64) float o[kRows][D];
  float m[kRows], l[kRows];

  start_tile<D>(t, rows, q, o, m, l);

  for (int64_t t0 = 0; t0 <= last_pos; t0 += kKeyChunk) {
    const int n =
        int(last_pos + 1 - t0 < kKeyChunk ? last_pos + 1 - t0 : kKeyChunk);
    pack_chunk<T, D>(t, t0, n, krow, vrow, kpack, vpack);
    for (int r0 = 0; r0 < rows; r0 += 4)
      scores4<D>(q, r0, kpack, s);
    softmax_chunk<D>(t, rows, t0, n, s, p, o, m, l);
    for (int r0 = 0; r0 < rows; r0 += 2)
      accumulate2<D>(p, r0, (n + 1) / 2, vpack, o);
  }
  write_rows<D>(t, rows, o, l);
}

template <DType T> ENGINE_AVX512BF16 void attend_dim(const AttentionTile &t) {
  if (t.head_dim == 64)
    attend<T, 64>(t);
  else
    attend<T, 128>(t);
}

} // namespace

void attend_tile_avx512bf16(const AttentionTile &t) {
  if (t.dtype == DType::F32)
    attend_dim<DType::F32>(t);
  else
    attend_dim<DType::BF16>(t);
}

} // namespace engine::cpu_detail
