// Scheduler: configuration and request errors, FIFO prefill within the
// sequence and token budgets, prefill before decode, preemption by recompute
// and the ways a sequence finishes.
#include "engine/error.h"
#include "engine/scheduler.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <numeric>

using namespace engine;

namespace {

SchedulerConfig small_config() {
  SchedulerConfig c;
  c.max_num_seqs = 4;
  c.max_num_batched_tokens = 64;
  c.num_kv_blocks = 32;
  c.block_size = 4;
  c.max_model_len = 64;
  return c;
}

SamplingParams until(int max_tokens, bool ignore_eos = true) {
  SamplingParams p;
  p.max_tokens = max_tokens;
  p.ignore_eos = ignore_eos;
  return p;
}

// Owns the sequences a test creates.
struct Pool {
  std::vector<std::unique_ptr<Sequence>> seqs;
  Sequence *make(std::vector<int32_t> prompt, SamplingParams params,
                 int block_size = 4) {
    seqs.push_back(std::make_unique<Sequence>(static_cast<int64_t>(seqs.size()),
                                              std::move(prompt), params,
                                              block_size));
    return seqs.back().get();
  }
};

std::vector<int32_t> tokens(int n, int32_t first = 1) {
  std::vector<int32_t> t(n);
  std::iota(t.begin(), t.end(), first);
  return t;
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

// Runs one step with `token` as every sequence's next token.
ScheduledBatch step(Scheduler &s, int32_t token = 1000) {
  ScheduledBatch b = s.schedule();
  EXPECT_EQ(s.check_invariants(), "");
  s.postprocess(b.seqs, std::vector<int32_t>(b.seqs.size(), token));
  EXPECT_EQ(s.check_invariants(), "");
  return b;
}

} // namespace

TEST(Scheduler, RejectsABadConfigNamingTheOption) {
  for (const char *field : {"max_num_seqs", "max_num_batched_tokens",
                            "num_kv_blocks", "block_size", "max_model_len"}) {
    SchedulerConfig c = small_config();
    int *value = std::string(field) == "max_num_seqs" ? &c.max_num_seqs
                 : std::string(field) == "max_num_batched_tokens"
                     ? &c.max_num_batched_tokens
                 : std::string(field) == "num_kv_blocks" ? &c.num_kv_blocks
                 : std::string(field) == "block_size"    ? &c.block_size
                                                         : &c.max_model_len;
    *value = 0;
    EXPECT_NE(error_of([&] { Scheduler tmp(c, {}); }).find(field),
              std::string::npos)
        << field;
  }
  SchedulerConfig c = small_config();
  c.max_num_batched_tokens = 32;
  EXPECT_EQ(error_of([&] { Scheduler tmp(c, {}); }),
            "scheduler: max_num_batched_tokens (32) must be at least "
            "max_model_len (64): a prompt is prefilled in one step");
}

TEST(Scheduler, RejectsRequestsThatCanNeverRun) {
  SchedulerConfig c = small_config();
  c.max_model_len = 4096;
  c.max_num_batched_tokens = 4096;
  c.num_kv_blocks = 2000;
  Scheduler s(c, {});
  Pool pool;
  EXPECT_EQ(error_of([&] { s.add(pool.make({}, until(4))); }),
            "request 0: prompt is empty");
  EXPECT_EQ(error_of([&] { s.add(pool.make(tokens(5000), until(4))); }),
            "request 1: prompt has 5000 tokens, max_model_len is 4096");
  SamplingParams bad = until(4);
  bad.top_p = 1.5f;
  EXPECT_EQ(error_of([&] { s.add(pool.make(tokens(3), bad)); }),
            "sampling: top_p must be in (0, 1], got 1.5");
  EXPECT_NE(error_of([&] {
              s.add(pool.make(tokens(3), until(4), 8));
            }).find("block_size 8"),
            std::string::npos);

  SchedulerConfig tiny = small_config();
  tiny.num_kv_blocks = 3; // 12 tokens of KV
  Scheduler t(tiny, {});
  // 10 prompt tokens + 4 outputs: KV for 13 tokens (the last output never
  // needs any) is 4 blocks.
  EXPECT_EQ(error_of([&] { t.add(pool.make(tokens(10), until(4))); }),
            "request 4: prompt (10 tokens) + max_tokens (4) needs 4 KV "
            "blocks, the cache has only 3");
  // KV for 12 tokens fits exactly.
  EXPECT_EQ(error_of([&] { t.add(pool.make(tokens(10), until(3))); }),
            "(no error)");
  EXPECT_EQ(t.num_waiting(), 1);
}

TEST(Scheduler, PrefillTakesWaitingInOrderWithinMaxNumSeqs) {
  Scheduler s(small_config(), {});
  Pool pool;
  for (int i = 0; i < 6; ++i)
    s.add(pool.make(tokens(3, 10 * i), until(5)));
  ScheduledBatch b = step(s);
  ASSERT_TRUE(b.is_prefill);
  ASSERT_EQ(b.seqs.size(), 4u);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(b.seqs[i]->seq_id, i);
  EXPECT_EQ(s.num_running(), 4);
  EXPECT_EQ(s.num_waiting(), 2);
  // Running is full: the next step decodes rather than admitting more.
  b = step(s);
  EXPECT_FALSE(b.is_prefill);
  EXPECT_EQ(b.seqs.size(), 4u);
}

TEST(Scheduler, PrefillStaysWithinTheTokenBudgetAndKeepsOrder) {
  SchedulerConfig c = small_config();
  c.max_num_batched_tokens = 20;
  c.max_model_len = 20;
  Scheduler s(c, {});
  Pool pool;
  Sequence *a = pool.make(tokens(8, 100), until(2));
  Sequence *b = pool.make(tokens(8, 200), until(2));
  Sequence *big = pool.make(tokens(12, 300), until(2));
  Sequence *small = pool.make(tokens(1, 400), until(2));
  for (Sequence *q : {a, b, big, small})
    s.add(q);
  ScheduledBatch first = s.schedule();
  ASSERT_TRUE(first.is_prefill);
  // 8 + 8 = 16; 12 more would exceed 20, and `small` must not jump ahead.
  EXPECT_EQ(first.seqs, (std::vector<Sequence *>{a, b}));
  s.postprocess(first.seqs, {1, 1});
  ScheduledBatch second = s.schedule();
  EXPECT_TRUE(second.is_prefill);
  EXPECT_EQ(second.seqs, (std::vector<Sequence *>{big, small}));
}

TEST(Scheduler, CachedPrefixTokensDoNotCountAgainstTheBudget) {
  SchedulerConfig c = small_config();
  c.max_num_batched_tokens = 16;
  c.max_model_len = 16;
  Scheduler s(c, {});
  Pool pool;
  Sequence *a = pool.make(tokens(13), until(2));
  s.add(a);
  step(s);
  Sequence *b = pool.make(tokens(13), until(2));
  Sequence *d = pool.make(tokens(13), until(2));
  s.add(b);
  s.add(d);
  ScheduledBatch batch = s.schedule();
  ASSERT_TRUE(batch.is_prefill);
  // Each needs only its last block: 1 token apiece.
  EXPECT_EQ(batch.seqs, (std::vector<Sequence *>{b, d}));
  EXPECT_EQ(b->num_cached_tokens, 12);
  EXPECT_EQ(d->num_cached_tokens, 12);
}

TEST(Scheduler, NewArrivalsArePrefilledBeforeTheNextDecode) {
  Scheduler s(small_config(), {});
  Pool pool;
  Sequence *a = pool.make(tokens(3), until(10));
  s.add(a);
  EXPECT_TRUE(step(s).is_prefill);
  EXPECT_FALSE(step(s).is_prefill);
  Sequence *b = pool.make(tokens(5, 50), until(10));
  s.add(b);
  ScheduledBatch p = step(s);
  EXPECT_TRUE(p.is_prefill);
  EXPECT_EQ(p.seqs, (std::vector<Sequence *>{b}));
  ScheduledBatch d = step(s);
  EXPECT_FALSE(d.is_prefill);
  EXPECT_EQ(d.seqs, (std::vector<Sequence *>{a, b}));
}

TEST(Scheduler, PreemptsTheNewestSequenceWhenBlocksRunOut) {
  SchedulerConfig c = small_config();
  c.num_kv_blocks = 4;
  Scheduler s(c, {});
  Pool pool;
  Sequence *a = pool.make(tokens(4, 10), until(9));
  Sequence *b = pool.make(tokens(4, 20), until(9));
  Sequence *late = pool.make(tokens(2, 30), until(2));
  s.add(a);
  s.add(b);
  int32_t next = 100;
  EXPECT_TRUE(step(s, next++).is_prefill); // 1 block each, 5 tokens each
  // Tokens 5-8 land in a second block each: all 4 blocks in use.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(step(s, next++).seqs.size(), 2u);
  s.add(late);
  EXPECT_EQ(s.block_manager().num_free_blocks(), 0);
  // `late` cannot be allocated; a's 9th token needs a third block: b goes.
  ScheduledBatch d = s.schedule();
  EXPECT_FALSE(d.is_prefill);
  EXPECT_EQ(d.seqs, (std::vector<Sequence *>{a}));
  EXPECT_EQ(b->status, SequenceStatus::Waiting);
  EXPECT_EQ(b->num_preemptions, 1);
  EXPECT_TRUE(b->block_table.empty());
  ASSERT_EQ(s.num_waiting(), 2);
  EXPECT_EQ(s.waiting().front(), b); // ahead of `late`
  EXPECT_EQ(s.check_invariants(), "");
  s.postprocess(d.seqs, {next});
  ++next;
  // Run to the end: b recomputes its 9 tokens and finishes with all of them.
  int guard = 0;
  while (!s.is_finished() && ++guard < 100)
    step(s, next);
  ASSERT_TRUE(s.is_finished());
  EXPECT_EQ(a->num_completion_tokens(), 9);
  EXPECT_EQ(b->num_completion_tokens(), 9);
  const std::vector<int32_t> b_done = b->completion_token_ids();
  EXPECT_EQ(std::vector<int32_t>(b_done.begin(), b_done.begin() + 5),
            (std::vector<int32_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(late->num_completion_tokens(), 2);
  EXPECT_EQ(a->num_preemptions, 0);
  EXPECT_EQ(s.block_manager().num_free_blocks(), 4);
}

TEST(Scheduler, ASequenceThatCannotAppendAfterTheOthersPreemptsItself) {
  SchedulerConfig c = small_config();
  c.num_kv_blocks = 3;
  Scheduler s(c, {});
  Pool pool;
  Sequence *a = pool.make(tokens(4, 10), until(5)); // KV for 8 tokens
  Sequence *b = pool.make(tokens(2, 20), until(7)); // KV for 8 tokens
  s.add(a);
  s.add(b);
  step(s); // a: 5 tokens, b: 3; one block each
  step(s); // a takes the last free block for its 5th token
  step(s); // a: 7, b: 5
  // a needs nothing; b's 5th token needs a block and b is the newest.
  ScheduledBatch d = s.schedule();
  EXPECT_FALSE(d.is_prefill);
  EXPECT_EQ(d.seqs, (std::vector<Sequence *>{a}));
  EXPECT_EQ(b->status, SequenceStatus::Waiting);
  EXPECT_EQ(b->num_preemptions, 1);
  EXPECT_EQ(s.check_invariants(), "");
  s.postprocess(d.seqs, {1});
  int guard = 0;
  while (!s.is_finished() && ++guard < 100)
    step(s);
  EXPECT_EQ(a->num_completion_tokens(), 5);
  EXPECT_EQ(b->num_completion_tokens(), 7);
}

TEST(Scheduler, FinishesOnAnyEosTokenUnlessIgnored) {
  Scheduler s(small_config(), {7, 9});
  Pool pool;
  Sequence *a = pool.make(tokens(3), until(10, false));
  Sequence *b = pool.make(tokens(3), until(10, false));
  Sequence *c = pool.make(tokens(3), until(10, true));
  for (Sequence *q : {a, b, c})
    s.add(q);
  ScheduledBatch p = s.schedule();
  auto done = s.postprocess(p.seqs, {5, 9, 9});
  EXPECT_EQ(done, (std::vector<Sequence *>{b}));
  EXPECT_TRUE(b->is_finished());
  EXPECT_TRUE(b->block_table.empty());
  EXPECT_EQ(b->completion_token_ids(), (std::vector<int32_t>{9}));
  ScheduledBatch d = s.schedule();
  EXPECT_EQ(d.seqs, (std::vector<Sequence *>{a, c}));
  done = s.postprocess(d.seqs, {7, 7});
  EXPECT_EQ(done, (std::vector<Sequence *>{a}));
  EXPECT_EQ(a->completion_token_ids(), (std::vector<int32_t>{5, 7}));
  EXPECT_FALSE(c->is_finished());
  EXPECT_EQ(s.num_running(), 1);
  EXPECT_EQ(s.check_invariants(), "");
}

TEST(Scheduler, FinishesAtMaxTokensOrMaxModelLen) {
  SchedulerConfig cfg = small_config();
  cfg.max_model_len = 10;
  cfg.max_num_batched_tokens = 10;
  Scheduler s(cfg, {});
  Pool pool;
  Sequence *a = pool.make(tokens(3), until(2));
  Sequence *b = pool.make(tokens(7), until(100));
  Sequence *full = pool.make(tokens(10), until(100)); // at the limit already
  for (Sequence *q : {a, b, full})
    s.add(q);
  int guard = 0;
  while (!s.is_finished() && ++guard < 50)
    step(s);
  EXPECT_EQ(a->num_completion_tokens(), 2);
  EXPECT_EQ(b->num_tokens(), 10);
  EXPECT_EQ(full->num_completion_tokens(), 1);
  EXPECT_EQ(s.block_manager().num_free_blocks(), cfg.num_kv_blocks);
}

TEST(Scheduler, ScheduleIsEmptyOnlyWhenEverythingFinished) {
  Scheduler s(small_config(), {});
  EXPECT_TRUE(s.is_finished());
  EXPECT_TRUE(s.schedule().seqs.empty());
  Pool pool;
  s.add(pool.make(tokens(2), until(1)));
  EXPECT_FALSE(s.is_finished());
  EXPECT_EQ(step(s).seqs.size(), 1u);
  EXPECT_TRUE(s.is_finished());
}

TEST(Scheduler, PostprocessRejectsMismatchedSizes) {
  Scheduler s(small_config(), {});
  Pool pool;
  s.add(pool.make(tokens(2), until(3)));
  ScheduledBatch b = s.schedule();
  EXPECT_THROW(s.postprocess(b.seqs, {}), std::invalid_argument);
}
