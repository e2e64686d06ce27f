// One step's inputs packed for a single upload: fixed offsets per capacity,
// the batch's values where the model reads them, padding that computes
// nothing, and each sampled sequence's uniform from its own stream.
#include "engine/cuda/step_layout.h"

#include "engine/error.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace engine;
using namespace engine::cuda;

namespace {
int32_t i32(const std::vector<uint32_t> &w, int64_t at) {
  int32_t v;
  std::memcpy(&v, &w[size_t(at)], 4);
  return v;
}
float f32(const std::vector<uint32_t> &w, int64_t at) {
  float v;
  std::memcpy(&v, &w[size_t(at)], 4);
  return v;
}

struct TwoSequences {
  TwoSequences() {
    SamplingParams greedy;
    greedy.temperature = 0;
    SamplingParams hot;
    hot.temperature = 0.6f;
    hot.top_k = 20;
    hot.top_p = 0.9f;
    hot.seed = 7;
    a = std::make_unique<Sequence>(0, std::vector<int32_t>{5, 6, 7}, greedy, 2);
    b = std::make_unique<Sequence>(1, std::vector<int32_t>{8, 9, 10, 11, 12},
                                   hot, 2);
    a->block_table = {3, 1};
    b->block_table = {0, 2, 4};
    b->num_cached_tokens = 2;
    seqs = {a.get(), b.get()};
  }
  std::unique_ptr<Sequence> a, b;
  std::vector<Sequence *> seqs;
};
} // namespace

TEST(StepLayout, ArraysAreAlignedAndDisjoint) {
  const StepLayout l = step_layout(5, 3, 7);
  const int64_t starts[] = {l.token_ids,    l.positions,    l.slot_mapping,
                            l.cu_seqlens_q, l.context_lens, l.block_tables,
                            l.logits_rows,  l.top_k,        l.temperature,
                            l.top_p,        l.uniform,      l.words};
  const int64_t sizes[] = {5, 5, 5, 4, 3, 21, 3, 3, 3, 3, 3};
  for (int i = 0; i < 11; ++i) {
    EXPECT_EQ(starts[i] % 4, 0) << i; // 16-byte boundaries
    EXPECT_GE(starts[i + 1], starts[i] + sizes[i]) << i;
  }
  // The offsets depend only on the capacities (graphs rely on it).
  EXPECT_EQ(step_layout(5, 3, 7).uniform, l.uniform);
}

TEST(StepLayout, PrefillIsPackedWhereTheModelReadsIt) {
  TwoSequences t;
  const ForwardBatch b = build_forward_batch(t.seqs, true);
  const StepLayout l = step_layout(b.num_tokens(), 2, 4);
  std::vector<uint32_t> w(size_t(l.words));
  pack_step(b, t.seqs.data(), l, 100, w.data());
  ASSERT_EQ(b.num_tokens(), 6); // 3 + (5 − 2 cached)
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(i32(w, l.token_ids + i), b.token_ids[i]);
    EXPECT_EQ(i32(w, l.positions + i), b.positions[i]);
    EXPECT_EQ(i32(w, l.slot_mapping + i), b.slot_mapping[i]);
  }
  EXPECT_EQ(i32(w, l.cu_seqlens_q + 2), 6);
  EXPECT_EQ(i32(w, l.context_lens + 1), 5);
  EXPECT_EQ(i32(w, l.logits_rows + 1), 5);
  // Tables are padded to the layout's width with −1.
  EXPECT_EQ(i32(w, l.block_tables + 0), 3);
  EXPECT_EQ(i32(w, l.block_tables + 1), 1);
  EXPECT_EQ(i32(w, l.block_tables + 2), -1);
  EXPECT_EQ(i32(w, l.block_tables + 4 + 2), 4);
  EXPECT_EQ(i32(w, l.block_tables + 4 + 3), -1);
  // Greedy draws nothing; the hot sequence its next uniform.
  EXPECT_EQ(f32(w, l.temperature), 0.f);
  EXPECT_EQ(f32(w, l.uniform), 0.f);
  EXPECT_EQ(i32(w, l.top_k + 1), 20);
  EXPECT_FLOAT_EQ(f32(w, l.top_p + 1), 0.9f);
  Rng expected(7);
  EXPECT_EQ(f32(w, l.uniform + 1), float(expected.uniform_double()));
}

TEST(StepLayout, GraphPaddingComputesAndStoresNothing) {
  TwoSequences t;
  const ForwardBatch b = build_forward_batch(t.seqs, false);
  const StepLayout l = step_layout(4, 4, 4); // a graph of 4 replaying 2
  std::vector<uint32_t> w(size_t(l.words), 0xdeadbeef);
  pack_step(b, t.seqs.data(), l, 100, w.data());
  for (int i = 2; i < 4; ++i) {
    EXPECT_EQ(i32(w, l.token_ids + i), 0);
    EXPECT_EQ(i32(w, l.slot_mapping + i), -1);
    EXPECT_EQ(i32(w, l.context_lens + i), 0);
    EXPECT_EQ(i32(w, l.cu_seqlens_q + i + 1), 2); // empty query range
    EXPECT_EQ(f32(w, l.temperature + i), 0.f);
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(i32(w, l.block_tables + i * 4 + j), -1);
  }
  EXPECT_EQ(i32(w, l.positions + 1), 4); // decode: the newest token only
}

TEST(StepLayout, ABatchPastTheLayoutOrABadIdIsRefused) {
  TwoSequences t;
  const ForwardBatch b = build_forward_batch(t.seqs, true);
  std::vector<uint32_t> w(4096);
  EXPECT_THROW(pack_step(b, t.seqs.data(), step_layout(5, 2, 4), 100, w.data()),
               Error);
  EXPECT_THROW(pack_step(b, t.seqs.data(), step_layout(6, 2, 2), 100, w.data()),
               Error);
  try {
    pack_step(b, t.seqs.data(), step_layout(6, 2, 4), 10, w.data());
    FAIL() << "token 10 is outside a vocabulary of 10";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("token id 10"), std::string::npos)
        << e.what();
  }
}

TEST(StepLayout, ReusedBatchEqualsAFreshOne) {
  TwoSequences t;
  ForwardBatch reused;
  build_forward_batch(t.seqs, true, reused);
  build_forward_batch(t.seqs, false, reused);
  const ForwardBatch fresh = build_forward_batch(t.seqs, false);
  EXPECT_EQ(reused.token_ids, fresh.token_ids);
  EXPECT_EQ(reused.positions, fresh.positions);
  EXPECT_EQ(reused.slot_mapping, fresh.slot_mapping);
  EXPECT_EQ(reused.cu_seqlens_q, fresh.cu_seqlens_q);
  EXPECT_EQ(reused.context_lens, fresh.context_lens);
  EXPECT_EQ(reused.block_tables, fresh.block_tables);
  EXPECT_EQ(reused.logits_rows, fresh.logits_rows);
  EXPECT_EQ(reused.max_blocks, fresh.max_blocks);
}
