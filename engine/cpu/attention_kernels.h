// engine/cpu/attention_kernels.h - one tile of paged attention (internal to
// engine/cpu): the query heads of one KV head for up to a few consecutive
// query tokens of one sequence, against all keys they may see.
//
// Keys are taken in chunks of kKeyChunk starting at position 0, whatever the
// tile and the block size, so a query's result depends only on its own
// sequence: the fixed reduction order behind paged_attention's determinism.
#pragma once

#include "engine/dtype.h"

#include <cstdint>

namespace engine::cpu_detail {

constexpr int kKeyChunk = 32;

struct AttentionTile {
  const float *q = nullptr; ///< first token of the tile, first head of group
  float *out = nullptr;     ///< same layout as q
  int64_t q_stride = 0;     ///< floats from one token to the next
  int tokens = 0;           ///< query tokens in the tile
  int group = 0;            ///< query heads per KV head
  /// Consecutive KV heads handled together (> 1 only for one token: then
  /// the rows are the query heads of all of them, read from one token row).
  int kv_heads = 1;
  int64_t first_pos = 0;   ///< position of the tile's first token
  const void *k = nullptr; ///< cache base, already offset to this KV head
  const void *v = nullptr;
  DType dtype = DType::F32;
  int64_t token_stride = 0; ///< elements from one cached token to the next
  const int32_t *block_table = nullptr;
  int block_size = 0;
  int head_dim = 0;
  float scale = 0;
  /// One partition of a decode split along the sequence: only keys
  /// [key_begin, key_end) (key_begin a multiple of kKeyChunk), and, with
  /// `partial`, the rows' unnormalized outputs (rows × head_dim floats) then
  /// their running maxima and sums (rows floats each) go there instead of
  /// to `out`, for paged_attention to merge. attend_decode_avx2 and
  /// attend_tile_avx512 read these; the other kernels see every key and
  /// write `out`.
  int64_t key_begin = 0;
  int64_t key_end = INT64_MAX;
  float *partial = nullptr;
};

/// Rows are (token, head) pairs: tokens·group·kv_heads ≤ kMaxTileRows.
constexpr int kMaxTileRows = 64;

/// kv_heads must be 1.
void attend_tile_scalar(const AttentionTile &t);
/// kv_heads must be 1; needs AVX2 and a head_dim that is a multiple of 8.
void attend_tile_avx2(const AttentionTile &t);
bool avx2_attention_supports_head_dim(int head_dim);
/// One query token (tokens == 1), kv_heads ≥ 1, tokens·group·kv_heads ≤
/// kMaxTileRows; needs AVX2 and avx2_decode_supports(head_dim, group).
void attend_decode_avx2(const AttentionTile &t);
bool avx2_decode_supports(int head_dim, int group);
/// Needs head_dim ∈ {64, 128, 256} and AVX-512.
void attend_tile_avx512(const AttentionTile &t);
bool avx512_supports_head_dim(int head_dim);
/// Whether the bf16-product prefill tiles below take this shape: head_dim
/// 64 or 128, at most 32 rows (kv_heads must be 1).
constexpr bool bf16_tile_supports(int head_dim, int rows) {
  return (head_dim == 64 || head_dim == 128) && rows <= 32;
}
/// bf16 tile products (prefill); needs AMX and bf16_tile_supports.
void attend_tile_amx(const AttentionTile &t);
/// The same products and rounding with AVX512-BF16 dot products on
/// registers (prefill without AMX); needs bf16_tile_supports.
void attend_tile_avx512bf16(const AttentionTile &t);

} // namespace engine::cpu_detail
