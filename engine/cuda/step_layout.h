// engine/cuda/step_layout.h - one model step's inputs as one flat buffer,
// so the host fills pinned memory and uploads it with a single copy.
//
// Host-only (no CUDA): built and tested on every machine. Every array is of
// 4-byte words at a fixed offset that depends only on the capacities, so a
// CUDA graph captured for a decode batch size reads the same addresses on
// every replay; rows past the step's own (graph padding) are filled so that
// they compute nothing and store nothing.
#pragma once

#include "engine/forward_batch.h"
#include "engine/sequence.h"

#include <cstdint>
#include <vector>

namespace engine::cuda {

struct StepLayout {
  int tokens = 0;      ///< token rows
  int seqs = 0;        ///< sequence rows
  int table_width = 0; ///< block-table entries per sequence
  // Offsets in words from the buffer's start (int32 or float each).
  int64_t token_ids = 0, positions = 0, slot_mapping = 0;
  int64_t cu_seqlens_q = 0, context_lens = 0, block_tables = 0;
  int64_t logits_rows = 0, top_k = 0, temperature = 0, top_p = 0;
  int64_t uniform = 0;
  int64_t words = 0; ///< total size
};

/// The layout for these capacities. Arrays start on 16-byte boundaries.
StepLayout step_layout(int tokens, int seqs, int table_width);

/// Writes batch (built for seqs, in order; a null seqs or entry samples
/// greedily) into words per layout, padding
/// unused rows (token 0 at position 0, slot −1, context length 0, empty
/// query range, block tables −1, greedy). Draws each sampled sequence's
/// uniform from its own stream (none at temperature 0), as the CPU Sampler
/// does. Throws engine::Error when the batch exceeds the layout, a block
/// table is wider than table_width, or a token id is outside [0, vocab).
void pack_step(const ForwardBatch &batch, Sequence *const *seqs,
               const StepLayout &layout, int64_t vocab, uint32_t *words);

/// The largest query length and context length of a batch (they size the
/// attention grids).
int max_query_len(const ForwardBatch &batch);
int max_context_len(const ForwardBatch &batch);

} // namespace engine::cuda
