// The CPU model against an independent float64 reference (torch, see
// test/engine/golden/README.md): logits at every prompt position, and the
// greedy continuations through the whole engine.
//
// Tolerances come from the fixtures themselves: fp32 activations over f32 or
// f16 weights must match to 1e-4 (plain fp32 torch lands within 3.2e-5);
// bf16 weights are used with activations rounded to bf16 (as llama.cpp
// does) and a bf16 KV cache (as Hugging Face keeps KV in the model's dtype),
// so those models get twice the drift the reference measured for exactly
// that rounding.
#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/kv_cache.h"
#include "engine/cpu/qwen3_cpu_model.h"
#include "engine/cpu/thread_pool.h"
#include "engine/error.h"
#include "engine/forward_batch.h"
#include "engine/io/checkpoint.h"
#include "engine/llm_engine.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

using namespace engine;
using nlohmann::json;

namespace {
json read_golden(const std::string &dir) {
  std::ifstream in(dir + "/golden.json");
  return json::parse(in);
}

/// Logits at every position of prompt, from one prefill with the paged
/// cache (block size 4, blocks in reverse order to exercise the table).
std::vector<float> all_position_logits(const std::string &dir,
                                       const std::vector<int32_t> &prompt) {
  ModelConfig config = load_model_config(dir);
  Checkpoint ckpt(dir);
  Qwen3Weights w = bind_qwen3_weights(config, ckpt);
  ThreadPool pool(2);
  Qwen3CpuModel model(pool, config, w, 64);
  const int block = 4, blocks = 16;
  // As the engine does: a bf16 cache for bf16 weights, fp32 otherwise.
  const DType kv_dtype =
      w.layers[0].k_proj->dtype == DType::BF16 ? DType::BF16 : DType::F32;
  KvCache kv(config.num_hidden_layers, blocks, block,
             config.num_key_value_heads, config.head_dim, kv_dtype);
  Sequence seq(0, prompt, SamplingParams{}, block);
  for (int i = 0; i < seq.num_blocks(); ++i)
    seq.block_table.push_back(blocks - 1 - i);
  ForwardBatch batch = build_forward_batch({&seq}, true);
  batch.logits_rows.clear();
  for (int i = 0; i < seq.num_tokens(); ++i)
    batch.logits_rows.push_back(i);
  std::vector<float> logits(prompt.size() * size_t(config.vocab_size));
  model.forward(pool, batch, kv, logits.data());
  return logits;
}

double tolerance_for(const std::string &dir, const json &golden) {
  ModelConfig config = load_model_config(dir);
  Checkpoint ckpt(dir);
  DType t = ckpt.get("model.layers.0.mlp.up_proj.weight",
                     {config.intermediate_size, config.hidden_size})
                .dtype;
  if (t == DType::BF16)
    return 2 *
           std::max(
               golden["bf16_activation_rounding_max_abs_diff"].get<double>(),
               golden["bf16_activation_and_kv_rounding_max_abs_diff"]
                   .get<double>());
  return 1e-4;
}

/// An engine sized for the fixtures: small blocks, short sequences.
EngineConfig small_engine_config() {
  EngineConfig c = default_engine_config();
  c.kvcache_block_size = 4;
  c.max_model_len = 64;
  c.max_num_batched_tokens = 256;
  c.num_kvcache_blocks = 64;
  c.num_threads = 2;
  return c;
}

class GoldenModel : public testing::TestWithParam<std::string> {
protected:
  std::string dir() const { return std::string(GOLDEN_DIR) + "/" + GetParam(); }
};
} // namespace

TEST_P(GoldenModel, LogitsAtEveryPromptPositionMatchTheReference) {
  json golden = read_golden(dir());
  const double tol = tolerance_for(dir(), golden);
  for (size_t p = 0; p < golden["prompts"].size(); ++p) {
    auto prompt = golden["prompts"][p].get<std::vector<int32_t>>();
    std::vector<float> logits = all_position_logits(dir(), prompt);
    const auto &expected = golden["prompt_logits"][p];
    const size_t vocab = expected[0].size();
    double worst = 0;
    for (size_t t = 0; t < prompt.size(); ++t)
      for (size_t v = 0; v < vocab; ++v)
        worst = std::max(worst, std::abs(double(logits[t * vocab + v]) -
                                         expected[t][v].get<double>()));
    EXPECT_LE(worst, tol) << "prompt " << p;
  }
}

TEST_P(GoldenModel, GreedyContinuationsMatchTheReference) {
  json golden = read_golden(dir());
  EngineConfig c = small_engine_config();
  // scripts/gpu-check.sh runs this on the CUDA backend too.
  if (const char *device = std::getenv("ENGINE_TEST_DEVICE"))
    c.device = device;
  LLM llm(dir(), c);
  SamplingParams greedy;
  greedy.temperature = 0;
  greedy.max_tokens = 12;
  std::vector<Prompt> prompts;
  for (auto &p : golden["prompts"])
    prompts.push_back(p.get<std::vector<int32_t>>());
  auto outs = llm.generate(prompts, {greedy});
  for (size_t p = 0; p < prompts.size(); ++p)
    EXPECT_EQ(outs[p].token_ids,
              golden["greedy"][p].get<std::vector<int32_t>>())
        << "prompt " << p;
}

// Decode's one-row products go through the plan chosen for each weight shape
// (engine/cpu/gemv_tuning.h): every plan this CPU can run, forced, must give
// the reference's continuations.
TEST_P(GoldenModel, GreedyContinuationsMatchWithEveryGemvPlanForced) {
  if (dir().find("bf16") == std::string::npos)
    GTEST_SKIP() << "gemv plans are for bf16 weights";
  json golden = read_golden(dir());
  std::vector<Prompt> prompts;
  for (auto &p : golden["prompts"])
    prompts.push_back(p.get<std::vector<int32_t>>());
  SamplingParams greedy;
  greedy.temperature = 0;
  greedy.max_tokens = 12;
  const std::vector<const GemvPlan *> plans = runnable_gemv_plans();
  if (plans.empty())
    GTEST_SKIP() << "no gemv plans at this instruction-set level";
  for (const GemvPlan *plan : plans) {
    EngineConfig c = small_engine_config();
    c.kernels = plan->name;
    c.kernel_wisdom = "none";
    LLM llm(dir(), c);
    auto outs = llm.generate(prompts, {greedy});
    for (size_t p = 0; p < prompts.size(); ++p)
      EXPECT_EQ(outs[p].token_ids,
                golden["greedy"][p].get<std::vector<int32_t>>())
          << "prompt " << p << " with " << plan->name;
  }
}

namespace {
/// Sets ENGINE_HUGE_PAGES for its lifetime, then puts back what was there.
class HugePagesSetting {
public:
  explicit HugePagesSetting(const char *value) {
    if (const char *old = std::getenv(kName))
      old_ = old, had_ = true;
    setenv(kName, value, 1);
  }
  ~HugePagesSetting() {
    if (had_)
      setenv(kName, old_.c_str(), 1);
    else
      unsetenv(kName);
  }

private:
  static constexpr const char *kName = "ENGINE_HUGE_PAGES";
  std::string old_;
  bool had_ = false;
};
} // namespace

// The weights copied into huge pages (engine/cpu/huge_pages.h) are the same
// numbers in other memory: the logits must not change by a bit, ties to the
// embeddings included.
TEST_P(GoldenModel, WeightsCopiedToHugePagesGiveTheSameLogits) {
  auto prompt = read_golden(dir())["prompts"][0].get<std::vector<int32_t>>();
  std::vector<float> in_place, copied;
  {
    HugePagesSetting off("0");
    in_place = all_position_logits(dir(), prompt);
  }
  {
    HugePagesSetting on("1");
    ModelConfig config = load_model_config(dir());
    Checkpoint ckpt(dir());
    Qwen3Weights w = bind_qwen3_weights(config, ckpt);
    ThreadPool pool(2);
    Qwen3CpuModel model(pool, config, w, 64);
    EXPECT_GT(model.weights_copied_bytes(), 0u);
    EXPECT_LE(model.weights_huge_bytes(), model.weights_copied_bytes());
    copied = all_position_logits(dir(), prompt);
  }
  ASSERT_EQ(in_place.size(), copied.size());
  EXPECT_EQ(0, std::memcmp(in_place.data(), copied.data(),
                           in_place.size() * sizeof(float)));
}

// Unset, the weights are copied wherever transparent huge pages are allowed;
// the checkpoint's own pages of them, dropped from this process after the
// copy, still read as the file's bytes (a file mapping is read again, not
// zeroed).
TEST(HugePagesSetting, UnsetTheWeightsAreCopiedWhereHugePagesAreAllowed) {
  const char *old = std::getenv("ENGINE_HUGE_PAGES");
  const std::string saved = old ? old : "";
  unsetenv("ENGINE_HUGE_PAGES");
  const std::string dir =
      std::string(GOLDEN_DIR) + "/qwen3_0p6b_like_gqa2_tiedcopy_bf16";
  ModelConfig config = load_model_config(dir);
  Checkpoint ckpt(dir);
  Qwen3Weights w = bind_qwen3_weights(config, ckpt);
  // The head: 50 KiB, whole pages of it dropped after the copy.
  const TensorView &head = *w.lm_head;
  ASSERT_GT(head.nbytes, size_t(8192));
  std::vector<unsigned char> before(
      static_cast<const unsigned char *>(head.data),
      static_cast<const unsigned char *>(head.data) + head.nbytes);
  {
    ThreadPool pool(2);
    Qwen3CpuModel model(pool, config, w, 64);
    EXPECT_EQ(model.weights_copied_bytes() > 0,
              transparent_huge_pages_allowed());
  }
  if (old)
    setenv("ENGINE_HUGE_PAGES", saved.c_str(), 1);
  EXPECT_EQ(0, std::memcmp(before.data(), head.data, before.size()));
}

TEST(HugePagesSetting, AValueOtherThanZeroOrOneIsAnError) {
  HugePagesSetting bad("yes");
  const std::string dir = std::string(GOLDEN_DIR) + "/gqa2_headdim32_tied_f32";
  ModelConfig config = load_model_config(dir);
  Checkpoint ckpt(dir);
  Qwen3Weights w = bind_qwen3_weights(config, ckpt);
  try {
    ThreadPool pool(2);
    Qwen3CpuModel model(pool, config, w, 64);
    FAIL() << "ENGINE_HUGE_PAGES=yes was accepted";
  } catch (const Error &e) {
    EXPECT_NE(std::string::npos,
              std::string(e.what()).find("ENGINE_HUGE_PAGES"));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenModel,
                         testing::Values("gqa2_headdim32_tied_f32",
                                         "gqa4_hidden48_untied_bf16",
                                         "mha_untied_f16_sharded",
                                         "qwen3_0p6b_like_gqa2_tiedcopy_bf16"));
