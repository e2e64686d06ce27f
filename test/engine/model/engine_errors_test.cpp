// Bad requests and bad options fail with one clear line at the call that
// caused them, and leave the engine usable.
#include "engine/error.h"
#include "engine/llm_engine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace engine;

namespace {
const std::string kModel = std::string(GOLDEN_DIR) + "/gqa2_headdim32_tied_f32";

EngineConfig small_config() {
  EngineConfig c = default_engine_config();
  c.kvcache_block_size = 16;
  c.max_model_len = 64;
  c.max_num_batched_tokens = 64;
  c.num_kvcache_blocks = 16;
  c.num_threads = 1;
  return c;
}

template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}
} // namespace

TEST(EngineErrors, PromptLongerThanMaxModelLenIsRefusedAndEngineStillWorks) {
  LLM llm(kModel, small_config());
  std::vector<int32_t> ids(65, 1);
  SamplingParams p;
  p.max_tokens = 1;
  EXPECT_NE(error_of([&] { llm.add_request(ids, p); }).find("max_model_len"),
            std::string::npos);
  EXPECT_EQ(
      llm.generate({std::vector<int32_t>{1, 2, 3}}, {p})[0].token_ids.size(),
      1u);
}

TEST(EngineErrors, TokenIdOutsideVocabularyNamesTheId) {
  LLM llm(kModel, small_config());
  std::string e = error_of([&] {
    llm.add_request(std::vector<int32_t>{1, 100000}, SamplingParams{});
  });
  EXPECT_NE(e.find("token id 100000"), std::string::npos) << e;
}

TEST(EngineErrors, TextPromptWithoutTokenizerSaysSo) {
  LLM llm(kModel, small_config());
  std::string e =
      error_of([&] { llm.add_request(std::string("hi"), SamplingParams{}); });
  EXPECT_NE(e.find("tokenizer.json"), std::string::npos) << e;
}

TEST(EngineErrors, InvalidSamplingParametersNameTheField) {
  LLM llm(kModel, small_config());
  SamplingParams p;
  p.top_p = 1.5f;
  EXPECT_NE(error_of([&] {
              llm.add_request(std::vector<int32_t>{1}, p);
            }).find("top_p"),
            std::string::npos);
  p = SamplingParams{};
  p.max_tokens = 0;
  EXPECT_NE(error_of([&] {
              llm.add_request(std::vector<int32_t>{1}, p);
            }).find("max_tokens"),
            std::string::npos);
}

TEST(EngineErrors, OptionsAreValidatedWithTheirNames) {
  struct Case {
    std::function<void(EngineConfig &)> change;
    std::string expected;
  } cases[] = {
      {[](EngineConfig &c) { c.max_num_seqs = 0; }, "max_num_seqs"},
      {[](EngineConfig &c) { c.kvcache_block_size = -4; },
       "kvcache_block_size"},
      {[](EngineConfig &c) { c.tensor_parallel_size = 2; },
       "tensor_parallel_size"},
      {[](EngineConfig &c) { c.gpu_memory_utilization = 1.5; },
       "gpu_memory_utilization"},
      {[](EngineConfig &c) { c.device = "tpu"; }, "device 'tpu'"},
      {[](EngineConfig &c) { c.max_num_batched_tokens = 32; },
       "max_num_batched_tokens"},
      {[](EngineConfig &c) { c.num_kvcache_blocks = 2; }, "KV cache"},
  };
  for (auto &c : cases) {
    EngineConfig config = small_config();
    c.change(config);
    std::string e = error_of([&] { LLM llm(kModel, config); });
    EXPECT_NE(e.find(c.expected), std::string::npos) << e;
  }
}

TEST(EngineErrors, MissingModelFolderNamesIt) {
  std::string e =
      error_of([] { LLM llm("/nonexistent/model", small_config()); });
  EXPECT_NE(e.find("/nonexistent/model"), std::string::npos) << e;
}

TEST(EngineErrors, TruncatedWeightsNameTheFile) {
  auto dir = std::filesystem::temp_directory_path() / "engine_errors_truncated";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kModel + "/config.json", dir / "config.json");
  auto size = std::filesystem::file_size(kModel + "/model.safetensors");
  {
    std::ifstream in(kModel + "/model.safetensors", std::ios::binary);
    std::string bytes(size / 2, '\0');
    in.read(bytes.data(), std::streamsize(bytes.size()));
    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  std::string e = error_of([&] { LLM llm(dir.string(), small_config()); });
  EXPECT_NE(e.find("model.safetensors"), std::string::npos) << e;
  std::filesystem::remove_all(dir);
}
