// test/engine/tokenizer/bpe_test.cpp - the merge loop: lowest rank first,
// leftmost among equals, and the scan and priority-queue methods agree.
#include "engine/tokenizer/bpe.h"

#include <gtest/gtest.h>

#include <random>

namespace engine {
namespace {

// Symbols: 0 = a, 1 = b, 2 = aa, 3 = ab, 4 = aab, 5 = aaaa, 6 = bb.
BpeMerges small_table() {
  return BpeMerges({{0, 0, 2},   // a a -> aa     (rank 0)
                    {0, 1, 3},   // a b -> ab     (rank 1)
                    {2, 1, 4},   // aa b -> aab   (rank 2)
                    {2, 2, 5},   // aa aa -> aaaa (rank 3)
                    {1, 1, 6}}); // b b -> bb     (rank 4)
}

TEST(Bpe, MergesLowestRankFirstAndLeftmostAmongEqualRanks) {
  BpeMerges m = small_table();
  std::vector<int32_t> s = {0, 0, 0}; // a a a -> (aa) a, not a (aa)
  m.apply(s);
  EXPECT_EQ(s, (std::vector<int32_t>{2, 0}));
  s = {0, 0, 1}; // a a b: "a a" (rank 0) beats "a b" (rank 1), then aa b
  m.apply(s);
  EXPECT_EQ(s, (std::vector<int32_t>{4}));
  s = {0, 0, 0, 0}; // -> aa aa -> aaaa
  m.apply(s);
  EXPECT_EQ(s, (std::vector<int32_t>{5}));
  s = {1};
  m.apply(s);
  EXPECT_EQ(s, (std::vector<int32_t>{1}));
}

TEST(Bpe, ALaterDuplicateMergeReplacesTheEarlierOne) {
  BpeMerges m({{0, 1, 3}, {0, 0, 2}, {0, 1, 4}});
  EXPECT_EQ(m.find(0, 1).rank, 2);
  EXPECT_EQ(m.find(0, 1).merged, 4);
  EXPECT_EQ(m.find(1, 0).rank, -1);
  EXPECT_EQ(m.size(), 2u);
}

TEST(Bpe, ScanAndQueueMethodsAgreeOnRandomWords) {
  BpeMerges m = small_table();
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<int32_t> word(1 + rng() % 120);
    for (auto &s : word)
      s = int32_t(rng() % 2);
    auto scan = word, queue = word;
    m.apply_scan(scan);
    m.apply_queue(queue);
    ASSERT_EQ(scan, queue) << "round " << round;
  }
}

} // namespace
} // namespace engine
