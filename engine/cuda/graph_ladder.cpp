// engine/cuda/graph_ladder.cpp - the decode graphs' batch sizes.
#include "engine/cuda/graph_ladder.h"

#include <algorithm>

namespace engine::cuda {

std::vector<int> decode_graph_sizes(int max_num_seqs) {
  std::vector<int> sizes;
  for (int s : {1, 2, 4, 8})
    if (s < max_num_seqs)
      sizes.push_back(s);
  for (int s = 16; s < max_num_seqs; s += 16)
    sizes.push_back(s);
  if (max_num_seqs >= 1)
    sizes.push_back(max_num_seqs);
  return sizes;
}

int graph_index_for(const std::vector<int> &sizes, int num_seqs) {
  auto it = std::lower_bound(sizes.begin(), sizes.end(), num_seqs);
  return it == sizes.end() ? -1 : int(it - sizes.begin());
}

} // namespace engine::cuda
