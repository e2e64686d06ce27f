// engine/cpu/attention.h - causal attention over a paged KV cache, for any
// mix of prefill and decode sequences in one batch.
//
// The cache of one layer is a pool of blocks of `block_size` tokens; each
// sequence owns a list of blocks (its block table), so sequences grow without
// copying and share prefix blocks. Keys and values are stored in fp32 or, to
// halve the bytes decode has to read, in bf16.
#pragma once

#include "engine/cpu/thread_pool.h"
#include "engine/dtype.h"

#include <cstdint>

namespace engine {

/// One layer's KV cache: k and v are [num_blocks][block_size][num_kv_heads]
/// [head_dim] arrays of `dtype` (F32: float, BF16: uint16_t bf16 bits).
struct PagedKv {
  void *k = nullptr;
  void *v = nullptr;
  int block_size = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  DType dtype = DType::F32; ///< F32 or BF16
  /// Blocks in the pool, to check block ids and slots; 0 skips the checks.
  int64_t num_blocks = 0;
};

/// Writes the keys and values of n_tokens new tokens ([n_tokens][num_kv_heads]
/// [head_dim] fp32 each) to their slots, slot = block·block_size + offset;
/// slot −1 skips the token (a padded or already cached position). Throws
/// engine::Error for a bad PagedKv shape or a slot outside the pool.
void store_kv(const float *k, const float *v, const int32_t *slot_mapping,
              int64_t n_tokens, const PagedKv &kv);

/// The sequences of one attention call. Queries of sequence s are tokens
/// [cu_seqlens_q[s], cu_seqlens_q[s+1]) of q; they are the last tokens of the
/// sequence's context_lens[s] tokens, all of which are already in the cache.
struct AttentionBatch {
  int num_seqs = 0;
  const int32_t *cu_seqlens_q = nullptr; ///< [num_seqs + 1], starts at 0
  const int32_t *context_lens = nullptr; ///< [num_seqs], incl. this step
  const int32_t *block_tables = nullptr; ///< [num_seqs][max_blocks]
  int max_blocks = 0;
};

/// out = softmax(q·kᵀ·scale, causal)·v per query head: query token j of a
/// sequence with n_q queries and context length L sits at position
/// L − n_q + j and attends to positions 0 … L − n_q + j; query head h reads
/// KV head h / (num_heads / num_kv_heads). q and out are
/// [total_q][num_heads][head_dim] fp32 (out must not overlap q). Softmax is
/// computed in fp32 with a running maximum; prefill tiles at the amx and
/// avx512bf16 levels multiply in bf16 (see set_attention_bf16_min_rows). Each
/// query row is computed over key chunks in a fixed order, by one thread, or,
/// for a decode over at least 1,024 keys at the avx2 level, in partitions along
/// the sequence fixed by its length and merged in order; so results do not
/// depend on the batch composition, the paging or the thread count. Throws
/// engine::Error for inconsistent shapes or lengths (n_q > L, L beyond the
/// block table, a bad block id).
void paged_attention(ThreadPool &pool, const float *q, int num_heads,
                     const AttentionBatch &batch, const PagedKv &kv,
                     float scale, float *out);

/// At the amx and avx512bf16 levels, tiles of at least `rows` query rows
/// (query tokens × heads per KV head; prefill) compute q·kᵀ and p·v as bf16
/// products (AMX tiles, or `vdpbf16ps`), with relative errors of about 1e-2
/// like the bf16 matmuls; smaller tiles (decode) and other levels stay in
/// fp32. 0 keeps every tile in fp32, a negative value restores the default
/// (16). For benchmarks and tests.
void set_attention_bf16_min_rows(int rows);

} // namespace engine
