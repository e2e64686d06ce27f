// A randomized end-to-end simulation of the Scheduler and BlockManager:
// hundreds of requests with shared prefixes arriving over time, a cache so
// small that preemption is routine, and a "model" whose next token depends
// only on the request and the position. After every step the invariants
// hold, the limits are respected, and a simulated KV cache shows every
// sequence reading exactly the KV of its own prefix; at the end every request
// has finished with exactly the tokens it would have produced alone.
#include "engine/random.h"
#include "engine/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

using namespace engine;

namespace {

constexpr int32_t kVocab = 40; // tokens 0 and 1 are EOS: ~5% per step

int32_t model_token(int64_t seq_id, int position) {
  Rng rng(static_cast<uint64_t>(seq_id) * 0x9e3779b97f4a7c15ULL ^
          static_cast<uint64_t>(position));
  return static_cast<int32_t>(rng.below(kVocab));
}

// What the request produces when nothing interrupts it.
std::vector<int32_t> expected_completion(const Sequence &seq,
                                         int max_model_len) {
  std::vector<int32_t> out;
  int len = seq.num_prompt_tokens;
  while (true) {
    const int32_t t = model_token(seq.seq_id, len);
    out.push_back(t);
    ++len;
    if ((!seq.params.ignore_eos && t <= 1) ||
        static_cast<int>(out.size()) >= seq.params.max_tokens ||
        len >= max_model_len)
      return out;
  }
}

// KV of position p stands for the whole prefix up to p, as real KV does.
uint64_t prefix_key(const std::vector<int32_t> &tokens, int p) {
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i <= p; ++i)
    h = (h ^ static_cast<uint32_t>(tokens[i])) * 1099511628211ULL;
  return h;
}

struct Stats {
  int steps = 0, preemptions = 0, cached_tokens = 0, max_batch = 0;
};

// `longest_seqs`: how many longest sequences the KV cache holds (plus one
// block); 1 makes preemption constant, more lets max_num_seqs bind.
Stats simulate(uint64_t seed, int block_size, int num_requests,
               int longest_seqs) {
  SchedulerConfig cfg;
  cfg.max_num_seqs = 8;
  cfg.max_num_batched_tokens = 64;
  cfg.max_model_len = 48;
  cfg.block_size = block_size;
  // A longest sequence needs KV for 47 tokens.
  cfg.num_kv_blocks = longest_seqs * ((47 + block_size - 1) / block_size) + 1;
  Scheduler sched(cfg, {0, 1});
  Rng rng(seed);

  std::vector<std::vector<int32_t>> prefixes;
  for (int i = 0; i < 6; ++i) {
    std::vector<int32_t> p(rng.below(25));
    for (int32_t &t : p)
      t = 2 + static_cast<int32_t>(rng.below(kVocab - 2));
    prefixes.push_back(p);
  }
  std::vector<std::unique_ptr<Sequence>> seqs;
  std::vector<std::vector<int32_t>> expected;
  for (int i = 0; i < num_requests; ++i) {
    std::vector<int32_t> prompt;
    if (i > 0 && rng.below(5) == 0) {
      // The same prompt again (n samples of one request): every block but
      // the last is a hit, the last one too if the cache were careless.
      const Sequence &earlier = *seqs[rng.below(seqs.size())];
      prompt.assign(earlier.token_ids.begin(),
                    earlier.token_ids.begin() + earlier.num_prompt_tokens);
    } else {
      prompt = prefixes[rng.below(prefixes.size())];
      const int suffix = 1 + static_cast<int>(rng.below(20));
      for (int j = 0; j < suffix && static_cast<int>(prompt.size()) < 48; ++j)
        prompt.push_back(2 + static_cast<int32_t>(rng.below(kVocab - 2)));
    }
    SamplingParams params;
    params.max_tokens = 1 + static_cast<int>(rng.below(30));
    params.ignore_eos = rng.below(4) == 0;
    seqs.push_back(
        std::make_unique<Sequence>(i, std::move(prompt), params, block_size));
    expected.push_back(expected_completion(*seqs.back(), cfg.max_model_len));
  }

  std::vector<uint64_t> kv(static_cast<size_t>(cfg.num_kv_blocks) * block_size,
                           0);
  const auto slot = [&](const Sequence &s, int p) {
    return static_cast<size_t>(s.block_table.at(p / block_size)) * block_size +
           p % block_size;
  };
  Stats stats;
  size_t added = 0;
  while (added < seqs.size() || !sched.is_finished()) {
    // Requests arrive a few at a time, also while others decode.
    const size_t arrivals = sched.is_finished() ? 1 : rng.below(3);
    for (size_t k = 0; k < arrivals && added < seqs.size(); ++k)
      sched.add(seqs[added++].get());

    const std::deque<Sequence *> waiting_before = sched.waiting();
    const std::deque<Sequence *> running_before = sched.running();
    const ScheduledBatch batch = sched.schedule();
    EXPECT_EQ(sched.check_invariants(), "") << "step " << stats.steps;
    if (batch.seqs.empty()) {
      ADD_FAILURE() << "empty batch with work left at step " << stats.steps;
      break;
    }
    EXPECT_LE(static_cast<int>(batch.seqs.size()), cfg.max_num_seqs);
    stats.max_batch =
        std::max(stats.max_batch, static_cast<int>(batch.seqs.size()));
    if (batch.is_prefill) {
      // FIFO: exactly the front of the waiting queue.
      int tokens = 0;
      for (size_t i = 0; i < batch.seqs.size(); ++i) {
        EXPECT_EQ(batch.seqs[i], waiting_before.at(i));
        // At least the last token is computed, so the step yields logits.
        EXPECT_LT(batch.seqs[i]->num_cached_tokens,
                  batch.seqs[i]->num_tokens());
        EXPECT_EQ(batch.seqs[i]->num_cached_tokens % block_size, 0);
        tokens +=
            batch.seqs[i]->num_tokens() - batch.seqs[i]->num_cached_tokens;
        stats.cached_tokens += batch.seqs[i]->num_cached_tokens;
      }
      EXPECT_LE(tokens, cfg.max_num_batched_tokens);
    } else {
      // Only already-running sequences, in admission order.
      auto pos = running_before.begin();
      for (Sequence *s : batch.seqs) {
        pos = std::find(pos, running_before.end(), s);
        EXPECT_NE(pos, running_before.end()) << "decode of a non-running seq";
      }
    }
    // "Run the model": write the KV of the computed positions, then check
    // that each sequence's whole context reads back its own prefix.
    for (Sequence *s : batch.seqs) {
      EXPECT_EQ(static_cast<int>(s->block_table.size()), s->num_blocks());
      const int first =
          batch.is_prefill ? s->num_cached_tokens : s->num_tokens() - 1;
      for (int p = first; p < s->num_tokens(); ++p)
        kv[slot(*s, p)] = prefix_key(s->token_ids, p);
    }
    std::vector<int32_t> next;
    for (Sequence *s : batch.seqs) {
      for (int p = 0; p < s->num_tokens(); ++p)
        if (kv[slot(*s, p)] != prefix_key(s->token_ids, p)) {
          ADD_FAILURE() << "seq " << s->seq_id << " reads wrong KV at " << p;
          break;
        }
      next.push_back(model_token(s->seq_id, s->num_tokens()));
    }
    sched.postprocess(batch.seqs, next);
    EXPECT_EQ(sched.check_invariants(), "") << "step " << stats.steps;
    if (++stats.steps > 100000) {
      ADD_FAILURE() << "no progress: livelock";
      break;
    }
  }
  for (size_t i = 0; i < seqs.size(); ++i) {
    EXPECT_TRUE(seqs[i]->is_finished()) << "seq " << i;
    EXPECT_EQ(seqs[i]->completion_token_ids(), expected[i]) << "seq " << i;
    stats.preemptions += seqs[i]->num_preemptions;
  }
  EXPECT_EQ(sched.block_manager().num_free_blocks(), cfg.num_kv_blocks);
  return stats;
}

} // namespace

TEST(SchedulerSimulation, EveryRequestFinishesWithItsTokensUnderPressure) {
  for (int block_size : {1, 3, 4, 16}) {
    for (uint64_t seed : {1, 2, 3}) {
      const Stats st = simulate(seed * 7919 + block_size, block_size, 300, 1);
      // The run must actually exercise what it is meant to test.
      EXPECT_GT(st.preemptions, 10) << "block_size " << block_size;
      EXPECT_GT(st.cached_tokens, 0) << "block_size " << block_size;
      EXPECT_GT(st.max_batch, 1) << "block_size " << block_size;
    }
  }
}

TEST(SchedulerSimulation, FullBatchesWithRoomierCacheStillFinishEverything) {
  for (int block_size : {2, 8}) {
    const Stats st = simulate(77 + block_size, block_size, 400, 4);
    EXPECT_EQ(st.max_batch, 8) << "max_num_seqs never reached";
    EXPECT_GT(st.preemptions, 0) << "block_size " << block_size;
    EXPECT_GT(st.cached_tokens, 0) << "block_size " << block_size;
  }
}
