// engine/cuda/step_layout.cpp - packing one step's inputs for the upload.
#include "engine/cuda/step_layout.h"

#include "engine/error.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace engine::cuda {

namespace {
int64_t aligned(int64_t words) { return (words + 3) & ~int64_t(3); }

void put(uint32_t *words, int64_t at, int32_t v) {
  std::memcpy(words + at, &v, 4);
}
void put(uint32_t *words, int64_t at, float v) {
  std::memcpy(words + at, &v, 4);
}
} // namespace

StepLayout step_layout(int tokens, int seqs, int table_width) {
  StepLayout l;
  l.tokens = tokens;
  l.seqs = seqs;
  l.table_width = table_width;
  int64_t at = 0;
  auto take = [&](int64_t n) {
    const int64_t start = at;
    at = aligned(at + n);
    return start;
  };
  l.token_ids = take(tokens);
  l.positions = take(tokens);
  l.slot_mapping = take(tokens);
  l.cu_seqlens_q = take(int64_t(seqs) + 1);
  l.context_lens = take(seqs);
  l.block_tables = take(int64_t(seqs) * table_width);
  l.logits_rows = take(seqs);
  l.top_k = take(seqs);
  l.temperature = take(seqs);
  l.top_p = take(seqs);
  l.uniform = take(seqs);
  l.words = at;
  return l;
}

void pack_step(const ForwardBatch &b, Sequence *const *seqs,
               const StepLayout &l, int64_t vocab, uint32_t *w) {
  const int n = b.num_tokens(), s = b.num_seqs();
  if (n > l.tokens || s > l.seqs)
    throw Error("engine: cuda: a step of " + std::to_string(n) + " tokens in " +
                std::to_string(s) +
                " sequences exceeds the staging capacity of " +
                std::to_string(l.tokens) + " tokens in " +
                std::to_string(l.seqs) + " sequences");
  if (b.max_blocks > l.table_width)
    throw Error("engine: cuda: a block table of " +
                std::to_string(b.max_blocks) + " blocks exceeds the " +
                std::to_string(l.table_width) + " that max_model_len allows");
  for (int t = 0; t < l.tokens; ++t) {
    const int32_t id = t < n ? b.token_ids[t] : 0;
    if (id < 0 || id >= vocab)
      throw Error("engine: token id " + std::to_string(id) +
                  " is outside the vocabulary [0, " + std::to_string(vocab) +
                  ")");
    put(w, l.token_ids + t, id);
    put(w, l.positions + t, t < n ? b.positions[t] : 0);
    put(w, l.slot_mapping + t, t < n ? b.slot_mapping[t] : -1);
  }
  for (int i = 0; i <= l.seqs; ++i)
    put(w, l.cu_seqlens_q + i, b.cu_seqlens_q[std::min(i, s)]);
  for (int i = 0; i < l.seqs; ++i) {
    const bool real = i < s;
    put(w, l.context_lens + i, real ? b.context_lens[i] : 0);
    for (int j = 0; j < l.table_width; ++j)
      put(w, l.block_tables + int64_t(i) * l.table_width + j,
          real && j < b.max_blocks
              ? b.block_tables[size_t(i) * b.max_blocks + j]
              : -1);
    put(w, l.logits_rows + i, real ? b.logits_rows[i] : 0);
    Sequence *seq = real && seqs ? seqs[i] : nullptr;
    const SamplingParams *p = seq ? &seq->params : nullptr;
    const float temperature = p ? p->temperature : 0.f;
    put(w, l.temperature + i, temperature);
    put(w, l.top_k + i, p ? int32_t(p->top_k) : 0);
    put(w, l.top_p + i, p ? p->top_p : 1.f);
    put(w, l.uniform + i,
        // One draw per sampled token, kept below 1 in float.
        temperature > 0
            ? std::min(float(seq->rng.uniform_double()), 0x1.fffffep-1f)
            : 0.f);
  }
}

int max_query_len(const ForwardBatch &b) {
  int m = 0;
  for (int i = 0; i < b.num_seqs(); ++i)
    m = std::max(m, b.cu_seqlens_q[i + 1] - b.cu_seqlens_q[i]);
  return m;
}

int max_context_len(const ForwardBatch &b) {
  int m = 0;
  for (int c : b.context_lens)
    m = std::max(m, c);
  return m;
}

} // namespace engine::cuda
