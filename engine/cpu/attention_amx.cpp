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
#include "engine/cpu/attention_bf16_chunk.h"
#include "engine/cpu/attention_kernels.h"

#include <immintrin.h>

#define ENGINE_AMX                                                             \
  __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,"         \
                        "avx512dq,avx512bf16,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

constexpr int kRows = kBf16TileRows; // two A tiles of 16 query rows

template <DType T, int D> ENGINE_AMX void attend(const AttentionTile &t) {
  constexpr int DB = D / 32; // dimension blocks of q·kᵀ
  constexpr int NB = D / 16; // dimension blocks of the output
  const int rows = t.tokens * t.group;
  const int64_t last_pos = t.first_pos + t.tokens - 1;

  alignas(64) uint16_t q[kRows][D];        // A tiles (rows past `rows`: 0)
  alignas(64) uint16_t krow[kKeyChunk][D]; // the chunk's keys in bf16
  alignas(64) uint16_t vrow[kKeyChunk][D];
  alignas(64) uint32_t kpack[2][DB][256]; // B tiles of kᵀ
  alignas(64) uint32_t vpack[NB][256];    // B tiles of v
  alignas(64) float s[kRows][kKeyChunk];
  alignas(64) uint16_t p[kRows][kKeyChunk]; // A tiles of probabilities
  alignas(64) float o[kRows][D];
  float m[kRows], l[kRows];

  start_tile<D>(t, rows, q, o, m, l);

  configure_full_tiles();

  for (int64_t t0 = 0; t0 <= last_pos; t0 += kKeyChunk) {
    const int n =
        int(last_pos + 1 - t0 < kKeyChunk ? last_pos + 1 - t0 : kKeyChunk);
    pack_chunk<T, D>(t, t0, n, krow, vrow, kpack, vpack);

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

    softmax_chunk<D>(t, rows, t0, n, s, p, o, m, l);

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
  write_rows<D>(t, rows, o, l);
}

template <DType T> ENGINE_AMX void attend_dim(const AttentionTile &t) {
  if (t.head_dim == 64)
    attend<T, 64>(t);
  else
    attend<T, 128>(t);
}

} // namespace

void attend_tile_amx(const AttentionTile &t) {
  if (t.dtype == DType::F32)
    attend_dim<DType::F32>(t);
  else
    attend_dim<DType::BF16>(t);
}

} // namespace engine::cpu_detail
