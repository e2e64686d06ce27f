// engine/scheduler.h - continuous batching: decides, step by step, which
// sequences the model runs and whether the step is a prefill (new or
// preempted sequences, their uncached prompt tokens) or a decode (one token
// for every running sequence). Prefill goes first; when the KV cache runs out
// during decode the most recently admitted sequence is preempted and later
// recomputed. Every accepted request is guaranteed to finish.
#pragma once

#include "engine/block_manager.h"
#include "engine/sequence.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace engine {

struct SchedulerConfig {
  /// Sequences running at once (and so per step).
  int max_num_seqs = 512;
  /// Tokens computed in one prefill step. Prefill is not chunked, so it must
  /// be at least max_model_len.
  int max_num_batched_tokens = 16384;
  /// KV cache size in blocks (no default: depends on the memory left).
  int num_kv_blocks = 0;
  /// Tokens per KV block.
  int block_size = 256;
  /// Longest sequence, prompt plus completion.
  int max_model_len = 4096;
};

/// One step's work: the sequences to run and whether it is a prefill (their
/// uncached tokens) or a decode (one token each).
struct ScheduledBatch {
  std::vector<Sequence *> seqs;
  bool is_prefill = false;
};

class Scheduler {
public:
  /// Throws engine::Error naming the option when a value is not positive or
  /// max_num_batched_tokens < max_model_len.
  Scheduler(const SchedulerConfig &config, std::vector<int32_t> eos_token_ids);

  /// Queues `seq` (not owned; it must outlive its time here) at the back of
  /// the waiting queue. Throws engine::Error for an empty prompt, a prompt
  /// longer than max_model_len, invalid sampling params, a block size other
  /// than the config's, or a request whose KV could outgrow the whole cache
  /// (it could never finish).
  void add(Sequence *seq);

  /// The next step: waiting sequences in FIFO order while they fit
  /// (max_num_seqs running, max_num_batched_tokens uncached tokens, free
  /// blocks); if none, a decode of every running sequence, preempting the
  /// most recently admitted ones when blocks run out. Empty only when
  /// is_finished(). Never mixes prefill and decode.
  ScheduledBatch schedule();

  /// Appends token_ids[i] to seqs[i] (the batch just run) and finishes the
  /// sequences that hit an EOS token (unless ignore_eos), max_tokens or
  /// max_model_len: status Finished, blocks freed. Returns those newly
  /// finished, in batch order. Throws std::invalid_argument when the sizes
  /// differ.
  std::vector<Sequence *> postprocess(const std::vector<Sequence *> &seqs,
                                      const std::vector<int32_t> &token_ids);

  bool is_finished() const { return waiting_.empty() && running_.empty(); }
  int num_waiting() const { return static_cast<int>(waiting_.size()); }
  int num_running() const { return static_cast<int>(running_.size()); }
  const std::deque<Sequence *> &waiting() const { return waiting_; }
  const std::deque<Sequence *> &running() const { return running_; }
  const SchedulerConfig &config() const { return config_; }
  BlockManager &block_manager() { return blocks_; }
  const BlockManager &block_manager() const { return blocks_; }

  /// Consistency check for tests: the BlockManager's invariants over the
  /// running sequences, waiting ones holding no blocks, running ones holding
  /// blocks for their tokens. Returns "" or the first problem found.
  std::string check_invariants() const;

private:
  void preempt(Sequence *seq);
  bool is_eos(int32_t token) const;

  SchedulerConfig config_;
  std::vector<int32_t> eos_token_ids_;
  BlockManager blocks_;
  std::deque<Sequence *> waiting_;
  std::deque<Sequence *> running_; ///< in admission order
};

} // namespace engine
