// engine/forward_batch.h - what one model step computes, in flat arrays:
// the host/device boundary. The ModelRunner builds it from the scheduled
// sequences; a backend's model reads only this (it knows nothing of
// sequences or scheduling).
#pragma once

#include <cstdint>
#include <vector>

namespace engine {

struct ForwardBatch {
  bool is_prefill = false;
  /// Every token computed in this step, sequence after sequence.
  std::vector<int32_t> token_ids;
  std::vector<int32_t> positions;
  /// KV slot (block * block_size + offset) each token's K and V go to.
  std::vector<int32_t> slot_mapping;
  /// Query tokens of sequence i are [cu_seqlens_q[i], cu_seqlens_q[i+1]).
  std::vector<int32_t> cu_seqlens_q;
  /// KV length of sequence i after this step (cached prefix included).
  std::vector<int32_t> context_lens;
  /// Row-major [num_seqs][max_blocks], padded with -1.
  std::vector<int32_t> block_tables;
  int max_blocks = 0;
  /// Tokens whose logits are wanted (the last one of each sequence).
  std::vector<int32_t> logits_rows;

  int num_seqs() const { return int(cu_seqlens_q.size()) - 1; }
  int num_tokens() const { return int(token_ids.size()); }
};

class Sequence;

/// The batch for one step over seqs (block tables must cover every token).
ForwardBatch build_forward_batch(const std::vector<Sequence *> &seqs,
                                 bool is_prefill);
/// The same into `out`, whose vectors keep their capacity: a backend that
/// reuses one ForwardBatch allocates nothing per step once warmed up.
void build_forward_batch(const std::vector<Sequence *> &seqs, bool is_prefill,
                         ForwardBatch &out);

} // namespace engine
