// engine/sequence.h - one request as the Scheduler and BlockManager see it:
// its tokens (prompt then completion), its block table into the paged KV
// cache and how much of its prefix is already cached.
#pragma once

#include "random.h"
#include "sampling_params.h"

#include <cstdint>
#include <vector>

namespace engine {

enum class SequenceStatus { Waiting, Running, Finished };

class Sequence {
public:
  Sequence(int64_t seq_id, std::vector<int32_t> prompt, SamplingParams params,
           int block_size)
      : seq_id(seq_id), token_ids(std::move(prompt)), params(params),
        block_size(block_size),
        num_prompt_tokens(static_cast<int>(token_ids.size())) {}

  int64_t seq_id;
  SequenceStatus status = SequenceStatus::Waiting;
  std::vector<int32_t> token_ids; ///< prompt followed by completion
  SamplingParams params;
  int block_size;
  int num_prompt_tokens;
  /// Leading tokens whose KV is already in the cache when prefill starts
  /// (prefix-cache hits); always less than num_tokens().
  int num_cached_tokens = 0;
  /// Physical KV block of each logical block, in order.
  std::vector<int32_t> block_table;
  /// Times this sequence was preempted (its blocks freed, to be recomputed).
  int num_preemptions = 0;
  /// This request's own random stream (the Sampler draws one uniform per
  /// sampled token from it). Seeded from params.seed, else from seq_id; the
  /// engine reseeds it when it derives seeds its own way.
  Rng rng{params.seed.value_or(static_cast<uint64_t>(seq_id))};

  int num_tokens() const { return static_cast<int>(token_ids.size()); }
  int num_completion_tokens() const { return num_tokens() - num_prompt_tokens; }
  int32_t last_token() const { return token_ids.back(); }
  int num_cached_blocks() const { return num_cached_tokens / block_size; }
  int num_blocks() const {
    return (num_tokens() + block_size - 1) / block_size;
  }
  int last_block_num_tokens() const {
    return num_tokens() - (num_blocks() - 1) * block_size;
  }
  /// Token ids of logical block i (the last one may be partial).
  const int32_t *block_tokens(int i) const {
    return token_ids.data() + i * block_size;
  }
  int block_num_tokens(int i) const {
    return i + 1 < num_blocks() ? block_size : last_block_num_tokens();
  }
  bool is_finished() const { return status == SequenceStatus::Finished; }
  std::vector<int32_t> completion_token_ids() const {
    return {token_ids.begin() + num_prompt_tokens, token_ids.end()};
  }
};

} // namespace engine
