// engine/cuda/graph_ladder.h - the decode batch sizes CUDA graphs are
// captured for, and which one a step replays.
//
// Host-only: built and tested on every machine. As Nano-vLLM: 1, 2, 4, 8,
// then every multiple of 16, up to max_num_seqs, which is always on the
// ladder itself (it need not be a multiple of anything).
#pragma once

#include <vector>

namespace engine::cuda {

/// Ascending sizes up to and including max_num_seqs (≥ 1).
std::vector<int> decode_graph_sizes(int max_num_seqs);

/// The index in sizes of the smallest size ≥ num_seqs (the graph a step
/// replays), or −1 when none is (run eagerly).
int graph_index_for(const std::vector<int> &sizes, int num_seqs);

} // namespace engine::cuda
