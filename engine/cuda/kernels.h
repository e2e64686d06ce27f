// engine/cuda/kernels.h - the CUDA backend's own kernels, each behind a plain
// C++ launch function (the .cu files are compiled by nvcc; everything that
// calls them is host code built by perfcc, so the probes see it).
//
// Types: bf16 tensors are uint16_t bit patterns on the host side (the .cu
// files read them as __nv_bfloat16); the residual stream, norm weights, RoPE
// tables and logits are fp32. Every launch is asynchronous on `stream` and
// never allocates, so a sequence of them can be captured into a CUDA graph.
// Launch errors are left for the caller's check (cuda_check.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace engine::cuda {

/// Head dimensions and GQA groups (query heads per KV head) the attention
/// kernels are built for: 16, 32, 64, 128; 1, 2, 4, 8, 16.
bool attention_supports_head_dim(int head_dim);
bool attention_supports_group(int group);

/// x[t] = fp32(embed[ids[t]]), x is [n][hidden]. Ids outside [0, vocab) give
/// a zero row (the host checks ids before upload).
void launch_embedding(const uint16_t *embed, int64_t vocab, int hidden,
                      const int32_t *ids, int n, float *x, cudaStream_t stream);

/// For each output row r (input row i = rows ? rows[r] : r):
/// if delta, residual[i] += delta[i]; out[r] = bf16(rms_norm(residual[i]) ·
/// weight). The add and the norm of a transformer block in one pass.
void launch_add_rms_norm(float *residual, const uint16_t *delta,
                         const float *weight, const int32_t *rows, int num_rows,
                         int dim, float eps, uint16_t *out,
                         cudaStream_t stream);

/// The attention block's element-wise work after the fused q/k/v projection
/// (qkv: [n][(heads + 2·kv_heads)·head_dim], q then k then v): q_norm and
/// k_norm per head, rotary embedding (NeoX pairing, cos/sin tables
/// [max_positions][head_dim/2]) at positions[t], q written to q_out
/// ([n][heads][head_dim]) and k, v written to the paged cache
/// ([slots][kv_heads][head_dim]) at slot_mapping[t] (−1: not stored).
struct QkvLayout {
  int heads, kv_heads, head_dim;
};
void launch_qk_norm_rope_store(const uint16_t *qkv, int n, QkvLayout layout,
                               const float *q_norm, const float *k_norm,
                               float eps, const float *rope_cos,
                               const float *rope_sin, const int32_t *positions,
                               const int32_t *slot_mapping, uint16_t *q_out,
                               uint16_t *k_cache, uint16_t *v_cache,
                               cudaStream_t stream);

/// out[t][i] = bf16(silu(gate) · up) with gate_up [n][2·dim] (gate first).
void launch_silu_mul(const uint16_t *gate_up, int n, int dim, uint16_t *out,
                     cudaStream_t stream);

/// One layer's paged KV cache and how sequences map onto it (the device
/// copies of ForwardBatch's arrays).
struct PagedKvView {
  const uint16_t *k, *v; ///< [num_blocks·block_size][kv_heads][head_dim]
  int block_size, kv_heads, head_dim;
  const int32_t *block_tables; ///< [num_seqs][table_width], −1 padded
  int table_width;
  const int32_t *context_lens; ///< [num_seqs], KV length after this step
};

/// Causal attention for any number of query tokens per sequence (prefill,
/// cached prefixes included): queries of sequence s are rows
/// [cu_seqlens_q[s], cu_seqlens_q[s+1]) of q ([tokens][heads][head_dim]),
/// the last ones of its context; every key is read from the cache.
/// max_q_len bounds the queries of one sequence (it sizes the grid).
/// `staging`: how K and V tiles reach shared memory (attention_options.h);
/// each gives the same result, bit for bit.
enum class PrefillStaging { transpose, ldmatrix, async };
void launch_prefill_attention(
    const uint16_t *q, int heads, const int32_t *cu_seqlens_q, int num_seqs,
    int max_q_len, PagedKvView kv, float scale, uint16_t *out,
    cudaStream_t stream, PrefillStaging staging = PrefillStaging::transpose);

/// Keys per partition of the split decode attention.
constexpr int kDecodePartition = 256;

/// Workspace floats launch_decode_attention needs for these bounds.
int64_t decode_attention_workspace(int num_seqs, int heads, int head_dim,
                                   int max_context);

/// What launch_qk_norm_rope_store is given, for decode attention to do that
/// work itself (one token per sequence: token s is sequence s).
struct QkNormRope {
  const uint16_t *qkv;
  QkvLayout layout;
  const float *q_norm, *k_norm;
  float eps;
  const float *rope_cos, *rope_sin;
  const int32_t *positions, *slot_mapping;
  uint16_t *q_out; ///< used only where the work is not folded in (below)
  uint16_t *k_cache, *v_cache;
};

/// One query token per sequence (row s of q), split along the sequence in
/// partitions of kDecodePartition keys, merged by the last block to finish
/// (one kernel). max_context bounds every context_lens[s] (fixed when
/// captured in a graph; partitions past a sequence's length do nothing); a
/// sequence with context length 0 (graph padding) gets a zero row.
/// workspace: decode_attention_workspace floats, any contents; tickets:
/// num_seqs · kv_heads ints, zeroed once before the first launch (each
/// launch leaves them zeroed).
/// With `fold`, q is not read: the step's q/k norms, RoPE and KV store
/// (launch_qk_norm_rope_store's work, bit for bit) happen here, inside the
/// attention kernel below kDecodeFoldMaxSeqs sequences (one kernel a layer
/// fewer: attention_options.h says why), in launch_qk_norm_rope_store into
/// fold->q_out before it otherwise.
constexpr int kDecodeFoldMaxSeqs = 16;
void launch_decode_attention(const uint16_t *q, int heads, int num_seqs,
                             int max_context, PagedKvView kv, float scale,
                             float *workspace, int *tickets, uint16_t *out,
                             cudaStream_t stream,
                             const QkNormRope *fold = nullptr);

/// Per-row sampling parameters on the device (the uniform is drawn on the
/// host from the sequence's own random stream; temperature 0 is greedy and
/// uses none).
struct SamplingView {
  const float *temperature, *top_p, *uniform;
  const int32_t *top_k;
};

/// The split form of launch_sample (split_sampling.h says why): a row gets
/// up to kMaxSplitBlocks blocks, and keeps a partial result for each warp of
/// each (a segment) between them.
constexpr int kMaxSplitBlocks = 32;
constexpr int kSplitSegments = kMaxSplitBlocks * 32;

/// What the split form needs besides the logits.
struct SampleWorkspace {
  float *scratch; ///< sample_workspace_floats(rows) floats, any contents
  int *tickets;   ///< one per row, zeroed once before the first launch
                  ///< (each launch leaves them zeroed)
  int sms;        ///< the GPU's multiprocessors (they size the grid)
};

/// Samples one token per row of logits ([rows][vocab] fp32, overwritten
/// with scratch values) as the CPU Sampler does: argmax at temperature 0
/// (lowest index on ties, NaNs skipped); otherwise softmax of logits /
/// temperature cut to the top_k largest (ties with the k-th kept) and to
/// the smallest most likely set reaching top_p (the crossing value kept),
/// and an inverse-CDF draw in vocabulary order. Deterministic: the same
/// logits and uniform always give the same token. Without `split`, one
/// block per row; with it, several (split_sampling_blocks), one pass over
/// the logits (the draw's sums then add in another order: a token can
/// differ where the uniform falls within rounding of a boundary).
void launch_sample(float *logits, int rows, int vocab, SamplingView params,
                   int32_t *tokens, cudaStream_t stream,
                   const SampleWorkspace *split = nullptr);

} // namespace engine::cuda
