// engine/forward_batch.cpp - flattening scheduled sequences into the arrays
// a model step reads.
#include "engine/forward_batch.h"

#include "engine/sequence.h"

#include <algorithm>

namespace engine {

ForwardBatch build_forward_batch(const std::vector<Sequence *> &seqs,
                                 bool is_prefill) {
  ForwardBatch b;
  build_forward_batch(seqs, is_prefill, b);
  return b;
}

void build_forward_batch(const std::vector<Sequence *> &seqs, bool is_prefill,
                         ForwardBatch &b) {
  b.is_prefill = is_prefill;
  b.token_ids.clear();
  b.positions.clear();
  b.slot_mapping.clear();
  b.cu_seqlens_q.assign(1, 0);
  b.context_lens.clear();
  b.block_tables.clear();
  b.logits_rows.clear();
  b.max_blocks = 0;
  for (const Sequence *s : seqs)
    b.max_blocks = std::max(b.max_blocks, int(s->block_table.size()));
  for (const Sequence *s : seqs) {
    // Prefill computes every token past the cached prefix; decode only the
    // newest token, whose KV is not in the cache yet.
    const int first = is_prefill ? s->num_cached_tokens : s->num_tokens() - 1;
    for (int p = first; p < s->num_tokens(); ++p) {
      b.token_ids.push_back(s->token_ids[p]);
      b.positions.push_back(p);
      b.slot_mapping.push_back(s->block_table[p / s->block_size] *
                                   s->block_size +
                               p % s->block_size);
    }
    b.cu_seqlens_q.push_back(int32_t(b.token_ids.size()));
    b.logits_rows.push_back(int32_t(b.token_ids.size()) - 1);
    b.context_lens.push_back(s->num_tokens());
    for (int i = 0; i < b.max_blocks; ++i)
      b.block_tables.push_back(
          i < int(s->block_table.size()) ? s->block_table[i] : -1);
  }
}

} // namespace engine
