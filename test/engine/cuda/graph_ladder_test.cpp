// The decode graphs' batch sizes: Nano-vLLM's ladder, always ending at
// max_num_seqs, and the padded size a step replays.
#include "engine/cuda/graph_ladder.h"

#include <gtest/gtest.h>

using namespace engine::cuda;

TEST(GraphLadder, NanoVllmsSizesEndingAtMaxNumSeqs) {
  EXPECT_EQ(decode_graph_sizes(512).size(), 4u + 31u + 1u);
  EXPECT_EQ(decode_graph_sizes(64),
            (std::vector<int>{1, 2, 4, 8, 16, 32, 48, 64}));
  // Not a multiple of anything: the last size is max_num_seqs itself.
  EXPECT_EQ(decode_graph_sizes(37), (std::vector<int>{1, 2, 4, 8, 16, 32, 37}));
  EXPECT_EQ(decode_graph_sizes(5), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(decode_graph_sizes(1), (std::vector<int>{1}));
}

TEST(GraphLadder, StepsArePaddedToTheNextSize) {
  const std::vector<int> sizes = decode_graph_sizes(37);
  // The padded size a step of n sequences replays.
  auto size_for = [&](int n) {
    const int i = graph_index_for(sizes, n);
    return i < 0 ? -1 : sizes[size_t(i)];
  };
  EXPECT_EQ(graph_index_for(sizes, 1), 0);
  EXPECT_EQ(size_for(1), 1);
  EXPECT_EQ(size_for(3), 4);
  EXPECT_EQ(size_for(16), 16);
  EXPECT_EQ(size_for(17), 32);
  EXPECT_EQ(size_for(33), 37);
  EXPECT_EQ(size_for(38), -1);
  EXPECT_EQ(graph_index_for({}, 1), -1); // enforce_eager
}
