// The engine's invariants, which need no reference: a cached prefix gives
// what recomputing it gives, paged KV with any block size gives what one big
// block gives, a batch gives what each request alone gives, a preempted
// request gives what an uninterrupted one gives, and a seed fixes samples.
//
// The models are the tiny golden fixtures (test/engine/golden), whose greedy
// paths have clear top-1 margins, so equal computations give equal tokens.
#include "engine/llm_engine.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <random>

using namespace engine;

namespace {
const std::string kModel = std::string(GOLDEN_DIR) + "/gqa2_headdim32_tied_f32";
const std::string kBf16Model =
    std::string(GOLDEN_DIR) + "/gqa4_hidden48_untied_bf16";

EngineConfig small_config(int block_size = 4) {
  EngineConfig c = default_engine_config();
  c.kvcache_block_size = block_size;
  c.max_model_len = 256;
  c.max_num_batched_tokens = 1024;
  c.num_kvcache_blocks = 1024 / block_size;
  c.num_threads = 2;
  // scripts/gpu-check.sh runs these invariants on the CUDA backend too.
  if (const char *device = std::getenv("ENGINE_TEST_DEVICE"))
    c.device = device;
  return c;
}

SamplingParams greedy(int n) {
  SamplingParams p;
  p.temperature = 0;
  p.max_tokens = n;
  p.ignore_eos = true;
  return p;
}

std::vector<Prompt> random_prompts(int count, int min_len, int max_len,
                                   int vocab, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Prompt> prompts;
  for (int i = 0; i < count; ++i) {
    int len = std::uniform_int_distribution<int>(min_len, max_len)(rng);
    std::vector<int32_t> ids(len);
    for (auto &t : ids)
      t = std::uniform_int_distribution<int32_t>(0, vocab - 1)(rng);
    prompts.push_back(ids);
  }
  return prompts;
}

std::vector<std::vector<int32_t>>
tokens_of(const std::vector<RequestOutput> &o) {
  std::vector<std::vector<int32_t>> t;
  for (auto &r : o)
    t.push_back(r.token_ids);
  return t;
}
} // namespace

TEST(EngineInvariants, BatchedGenerationEqualsOneRequestAtATime) {
  LLM batched(kModel, small_config());
  auto prompts = random_prompts(6, 3, 40, batched.model_config().vocab_size, 1);
  auto together = tokens_of(batched.generate(prompts, {greedy(10)}));
  for (size_t i = 0; i < prompts.size(); ++i) {
    LLM alone(kModel, small_config());
    auto single = tokens_of(alone.generate({prompts[i]}, {greedy(10)}));
    EXPECT_EQ(single[0], together[i]) << "prompt " << i;
  }
}

// With bf16 weights a batch of m rows may run another kernel than one row
// (AMX tiles against AVX512-BF16 dot products), which sums in another order:
// equal up to rounding, so equal tokens where the greedy margins exceed the
// rounding drift, as on the golden prompts (margins >= 0.25).
TEST(EngineInvariants,
     BatchedGenerationEqualsOneRequestAtATimeWithBf16Weights) {
  std::ifstream in(kBf16Model + "/golden.json");
  std::vector<Prompt> prompts;
  const nlohmann::json golden = nlohmann::json::parse(in);
  for (auto &p : golden["prompts"])
    prompts.push_back(p.get<std::vector<int32_t>>());
  ASSERT_EQ(prompts.size(), 3u);
  LLM batched(kBf16Model, small_config());
  auto together = tokens_of(batched.generate(prompts, {greedy(12)}));
  for (size_t i = 0; i < prompts.size(); ++i) {
    LLM alone(kBf16Model, small_config());
    EXPECT_EQ(tokens_of(alone.generate({prompts[i]}, {greedy(12)}))[0],
              together[i])
        << "prompt " << i;
  }
}

TEST(EngineInvariants, PagedKvWithAnyBlockSizeEqualsOneContiguousBlock) {
  auto prompts = random_prompts(4, 5, 60, 256, 2);
  LLM contiguous(kModel, small_config(256));
  auto expected = tokens_of(contiguous.generate(prompts, {greedy(12)}));
  for (int block_size : {1, 3, 16}) {
    LLM paged(kModel, small_config(block_size));
    EXPECT_EQ(tokens_of(paged.generate(prompts, {greedy(12)})), expected)
        << "block size " << block_size;
  }
}

TEST(EngineInvariants, CachedPrefixEqualsRecompute) {
  auto base =
      std::get<std::vector<int32_t>>(random_prompts(1, 30, 30, 256, 3)[0]);
  std::vector<int32_t> longer = base;
  longer.insert(longer.end(), {7, 8, 9, 10, 11});

  LLM cold(kModel, small_config());
  auto expected = tokens_of(cold.generate({longer}, {greedy(8)}));

  LLM warm(kModel, small_config());
  warm.generate({base}, {greedy(8)});
  warm.reset_stats();
  auto got = tokens_of(warm.generate({longer}, {greedy(8)}));
  // 30 shared tokens = 7 full blocks of 4 reused.
  EXPECT_EQ(warm.stats().cached_prompt_tokens, 28);
  EXPECT_EQ(got, expected);

  // An identical prompt hits every block but the one holding its last token.
  warm.reset_stats();
  auto again = tokens_of(warm.generate({longer}, {greedy(8)}));
  EXPECT_EQ(warm.stats().cached_prompt_tokens, 32);
  EXPECT_EQ(again, expected);
}

TEST(EngineInvariants, PreemptedRequestsEqualUninterruptedOnes) {
  auto prompts = random_prompts(8, 10, 30, 256, 4);
  LLM roomy(kModel, small_config());
  auto expected = tokens_of(roomy.generate(prompts, {greedy(40)}));

  // 24 blocks of 4 tokens cannot hold eight sequences of up to 70 tokens:
  // the scheduler has to preempt and recompute.
  EngineConfig tight = small_config();
  tight.num_kvcache_blocks = 24;
  tight.max_model_len = 96;
  LLM cramped(kModel, tight);
  auto outputs = cramped.generate(prompts, {greedy(40)});
  int preemptions = 0;
  for (auto &o : outputs)
    preemptions += o.num_preemptions;
  EXPECT_GT(preemptions, 0);
  EXPECT_EQ(tokens_of(outputs), expected);
}

TEST(EngineInvariants, SameSeedSameSamplesWhateverTheBatch) {
  auto prompts = random_prompts(3, 4, 20, 256, 5);
  SamplingParams p;
  p.temperature = 1.0f;
  p.top_k = 50;
  p.top_p = 0.9f;
  p.max_tokens = 16;
  p.ignore_eos = true;
  p.seed = 1234;
  LLM a(kModel, small_config());
  auto together = tokens_of(a.generate(prompts, {p}));
  LLM b(kModel, small_config());
  auto alone = tokens_of(b.generate({prompts[1]}, {p}));
  EXPECT_EQ(alone[0], together[1]);

  SamplingParams other = p;
  other.seed = 99;
  LLM c(kModel, small_config());
  EXPECT_NE(tokens_of(c.generate({prompts[1]}, {other}))[0], alone[0]);
}

TEST(EngineInvariants, EveryRequestFinishesWithItsMaxTokens) {
  auto prompts = random_prompts(20, 1, 50, 256, 6);
  std::vector<SamplingParams> params;
  for (int i = 0; i < 20; ++i)
    params.push_back(greedy(1 + i * 3));
  EngineConfig c = small_config();
  c.max_num_seqs = 5;
  c.max_num_batched_tokens = 256;
  c.max_model_len = 128;
  LLM llm(kModel, c);
  auto outs = llm.generate(prompts, params);
  ASSERT_EQ(outs.size(), 20u);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(int(outs[i].token_ids.size()), 1 + i * 3);
}
