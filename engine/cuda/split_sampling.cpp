// engine/cuda/split_sampling.cpp - see split_sampling.h.
#include "engine/cuda/split_sampling.h"

#include "engine/env_switch.h"

#include <algorithm>

namespace engine::cuda {

bool split_sampling_enabled() {
  static const bool enabled = env_switch(
      "ENGINE_CUDA_SPLIT_SAMPLING", false,
      "0 (the default: a block samples a row) or 1 (several blocks sample a "
      "row in one pass over its logits)");
  return enabled;
}

int split_sampling_blocks(int rows, int vocab, int sms) {
  constexpr int kThreadsPerBlock = 1024;
  const int wanted = 2 * std::max(1, sms) / std::max(1, rows);
  const int by_vocab = vocab / kThreadsPerBlock;
  return std::clamp(std::min(wanted, by_vocab), 1, kMaxSplitBlocks);
}

int64_t sample_workspace_floats(int rows) {
  // Per row: a (max, sum) pair per segment and an (argmax value, index)
  // pair per block.
  return int64_t(rows) * (kSplitSegments + kMaxSplitBlocks) * 2;
}

} // namespace engine::cuda
