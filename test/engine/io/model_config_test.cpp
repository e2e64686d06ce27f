// test/engine/io/model_config_test.cpp - config.json and
// generation_config.json: the official Qwen3-0.6B files read as published,
// defaults as transformers applies them, and each bad field an error naming
// config.json and the field.
#include "engine/io/model_config.h"
#include "io_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace engine {
namespace {

using nlohmann::json;
using test::error_message;
using test::TempDir;
using test::write_bytes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Qwen3-0.6B's config.json as published (transformers 4.51).
const char *kQwen3Config = R"({
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 1024,
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "max_position_embeddings": 40960,
  "max_window_layers": 28,
  "model_type": "qwen3",
  "num_attention_heads": 16,
  "num_hidden_layers": 28,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
})";

// Writes config.json = the official file with `patch` merged in (a null
// value removes the field).
std::string write_config(const TempDir &dir, const json &patch) {
  json c = json::parse(kQwen3Config);
  for (const auto &[k, v] : patch.items()) {
    if (v.is_null())
      c.erase(k);
    else
      c[k] = v;
  }
  write_bytes(dir.file("config.json"), c.dump());
  return dir.file("config.json");
}

TEST(ModelConfigTest, ReadsTheOfficialQwen3Config) {
  TempDir dir;
  write_bytes(dir.file("config.json"), kQwen3Config);
  ModelConfig c = load_model_config(dir.path());
  EXPECT_EQ(c.vocab_size, 151936);
  EXPECT_EQ(c.hidden_size, 1024);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.num_hidden_layers, 28);
  EXPECT_EQ(c.num_attention_heads, 16);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.head_dim, 128) << "not hidden/heads = 64";
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope_theta, 1e6);
  EXPECT_EQ(c.max_position_embeddings, 40960);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_EQ(c.torch_dtype, "bfloat16");
  EXPECT_THAT(c.bos_token_ids, ElementsAre(151643));
  EXPECT_THAT(c.eos_token_ids, ElementsAre(151645));
  // The published count: 440,467,456 non-embedding + 155,582,464 embedding.
  EXPECT_EQ(c.num_parameters(), 596049920);
  c.tie_word_embeddings = false;
  EXPECT_EQ(c.num_parameters(), 596049920 + 155582464);
}

TEST(ModelConfigTest, AppliesTransformersDefaults) {
  TempDir dir;
  write_config(dir, {{"num_key_value_heads", nullptr},
                     {"head_dim", nullptr},
                     {"rope_theta", nullptr},
                     {"rms_norm_eps", nullptr},
                     {"tie_word_embeddings", nullptr},
                     {"max_position_embeddings", nullptr},
                     {"eos_token_id", {1, 2}},
                     {"bos_token_id", nullptr}});
  ModelConfig c = load_model_config(dir.path());
  EXPECT_EQ(c.num_key_value_heads, 16);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_DOUBLE_EQ(c.rope_theta, 10000.0);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_EQ(c.max_position_embeddings, 32768);
  EXPECT_THAT(c.eos_token_ids, ElementsAre(1, 2));
  EXPECT_TRUE(c.bos_token_ids.empty());
}

// RoPE's base given only inside rope_parameters (where transformers 5 keeps
// it), and dtype for torch_dtype.
TEST(ModelConfigTest, ReadsTransformers5RopeParametersAndDtype) {
  TempDir dir;
  write_config(dir, {{"rope_theta", nullptr},
                     {"rope_scaling", nullptr},
                     {"torch_dtype", nullptr},
                     {"dtype", "bfloat16"},
                     {"rope_parameters",
                      {{"rope_type", "default"}, {"rope_theta", 250000.0}}}});
  ModelConfig c = load_model_config(dir.path());
  EXPECT_DOUBLE_EQ(c.rope_theta, 250000.0);
  EXPECT_EQ(c.torch_dtype, "bfloat16");

  // Both places, the same value: fine; no theta inside: the top level's.
  write_config(dir, {{"rope_parameters",
                      {{"rope_type", "default"}, {"rope_theta", 1000000}}}});
  EXPECT_DOUBLE_EQ(load_model_config(dir.path()).rope_theta, 1e6);
  write_config(dir, {{"rope_parameters", {{"rope_type", "default"}}}});
  EXPECT_DOUBLE_EQ(load_model_config(dir.path()).rope_theta, 1e6);
}

TEST(ModelConfigTest, BadFieldsAreErrorsNamingConfigAndField) {
  struct Case {
    json patch;
    std::string expect; // after "<folder>/config.json: "
  };
  const std::vector<Case> cases = {
      {{{"vocab_size", nullptr}}, "missing field 'vocab_size'"},
      {{{"num_key_value_heads", 6}},
       "num_attention_heads (16) is not a multiple of num_key_value_heads (6)"},
      {{{"rope_scaling", {{"type", "yarn"}, {"factor", 4.0}}}},
       "rope_scaling is unsupported"},
      {{{"hidden_size", "1024"}},
       "field 'hidden_size' must be an integer, not a string"},
      {{{"hidden_size", 1024.5}},
       "field 'hidden_size' must be an integer, not a number"},
      {{{"rope_theta", "1e6"}}, "field 'rope_theta' must be a number"},
      {{{"rope_parameters", {{"rope_type", "yarn"}, {"factor", 4.0}}}},
       "rope_parameters: rope_type 'yarn' is unsupported (only default)"},
      {{{"rope_parameters", {{"rope_theta", 10000}}}},
       "rope_theta 1000000 and rope_parameters' rope_theta 10000 disagree"},
      {{{"rope_parameters", {{"rope_theta", "x"}}}},
       "rope_parameters: field 'rope_theta' must be a number"},
      {{{"rope_parameters", 5}},
       "field 'rope_parameters' must be an object, not an integer"},
      {{{"tie_word_embeddings", 1}},
       "field 'tie_word_embeddings' must be true or false, not an integer"},
      {{{"eos_token_id", "x"}},
       "field 'eos_token_id' must be an integer or a list of integers"},
      {{{"attention_bias", true}}, "attention_bias true is unsupported"},
      {{{"use_sliding_window", true}},
       "use_sliding_window true is unsupported"},
      {{{"hidden_act", "gelu"}}, "hidden_act 'gelu' is unsupported"},
      {{{"layer_types", {"sliding_attention"}}},
       "layer_types other than full_attention are unsupported"},
      {{{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}},
       "not a Qwen3 model (architectures [\"LlamaForCausalLM\"], model_type "
       "'llama')"},
      {{{"architectures", nullptr}, {"model_type", nullptr}},
       "not a Qwen3 model (no architectures or model_type)"},
      {{{"num_hidden_layers", 0}}, "num_hidden_layers must be positive, got 0"},
      {{{"intermediate_size", -5}},
       "intermediate_size must be positive, got -5"},
      {{{"head_dim", 127}}, "head_dim must be even"},
      {{{"head_dim", nullptr},
        {"hidden_size", 1000},
        {"num_attention_heads", 16}},
       "missing field 'head_dim' (hidden_size 1000 is not a multiple of "
       "num_attention_heads 16)"},
      {{{"rms_norm_eps", 0}}, "rms_norm_eps must be positive"},
      {{{"rope_theta", -1}}, "rope_theta must be positive"},
      {{{"eos_token_id", 151936}},
       "eos_token_id 151936 is outside the vocabulary (151936 tokens)"},
      {{{"vocab_size", 18446744073709551615ull}},
       "field 'vocab_size' is too large"},
  };
  for (const Case &c : cases) {
    TempDir dir;
    const std::string path = write_config(dir, c.patch);
    EXPECT_THAT(error_message([&] { load_model_config(dir.path()); }),
                HasSubstr(path + ": " + c.expect))
        << c.patch.dump();
  }
}

TEST(ModelConfigTest, MissingOrMalformedFileIsAnError) {
  TempDir dir;
  EXPECT_THAT(error_message([&] { load_model_config(dir.path()); }),
              HasSubstr(dir.file("config.json") + ": cannot open"));
  write_bytes(dir.file("config.json"), "{\n  \"vocab_size\": 10,\n  oops\n}");
  EXPECT_EQ(error_message([&] { load_model_config(dir.path()); }),
            dir.file("config.json") + ": not valid JSON (line 3, column 3)");
  write_bytes(dir.file("config.json"), "[]");
  EXPECT_EQ(error_message([&] { load_model_config(dir.path()); }),
            dir.file("config.json") + ": not a JSON object (it is an array)");
}

TEST(ModelConfigTest, WrittenConfigReadsBackTheSame) {
  ModelConfig c;
  c.vocab_size = 1000;
  c.hidden_size = 64;
  c.intermediate_size = 96;
  c.num_hidden_layers = 3;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 16;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 12345.5;
  c.max_position_embeddings = 2048;
  c.tie_word_embeddings = false;
  c.torch_dtype = "float16";
  c.eos_token_ids = {7, 9};
  c.bos_token_ids = {3};
  TempDir dir;
  write_bytes(dir.file("config.json"), model_config_json(c));
  ModelConfig r = load_model_config(dir.path());
  EXPECT_EQ(r.vocab_size, c.vocab_size);
  EXPECT_EQ(r.hidden_size, c.hidden_size);
  EXPECT_EQ(r.intermediate_size, c.intermediate_size);
  EXPECT_EQ(r.num_hidden_layers, c.num_hidden_layers);
  EXPECT_EQ(r.num_attention_heads, c.num_attention_heads);
  EXPECT_EQ(r.num_key_value_heads, c.num_key_value_heads);
  EXPECT_EQ(r.head_dim, c.head_dim);
  EXPECT_EQ(r.rms_norm_eps, c.rms_norm_eps);
  EXPECT_EQ(r.rope_theta, c.rope_theta);
  EXPECT_EQ(r.max_position_embeddings, c.max_position_embeddings);
  EXPECT_EQ(r.tie_word_embeddings, c.tie_word_embeddings);
  EXPECT_EQ(r.torch_dtype, c.torch_dtype);
  EXPECT_EQ(r.eos_token_ids, c.eos_token_ids);
  EXPECT_EQ(r.bos_token_ids, c.bos_token_ids);
  json j = json::parse(model_config_json(c));
  EXPECT_EQ(j["model_type"], "qwen3");
  EXPECT_EQ(j["hidden_act"], "silu");
  EXPECT_TRUE(j["rope_scaling"].is_null());
  EXPECT_EQ(j["attention_bias"], false);
}

TEST(ModelConfigTest, ReadsTheOfficialGenerationConfig) {
  TempDir dir;
  write_bytes(dir.file("generation_config.json"), R"({
  "bos_token_id": 151643,
  "do_sample": true,
  "eos_token_id": [151645, 151643],
  "pad_token_id": 151643,
  "temperature": 0.6,
  "top_k": 20,
  "top_p": 0.95,
  "transformers_version": "4.51.0"
})");
  GenerationConfig g = load_generation_config(dir.path());
  EXPECT_THAT(g.eos_token_ids, ElementsAre(151645, 151643));
  EXPECT_EQ(g.bos_token_id, 151643);
  EXPECT_EQ(g.pad_token_id, 151643);
  EXPECT_DOUBLE_EQ(g.temperature, 0.6);
  EXPECT_EQ(g.top_k, 20);
  EXPECT_DOUBLE_EQ(g.top_p, 0.95);
  EXPECT_TRUE(g.do_sample);

  write_bytes(dir.file("generation_config.json"), generation_config_json(g));
  GenerationConfig r = load_generation_config(dir.path());
  EXPECT_EQ(r.eos_token_ids, g.eos_token_ids);
  EXPECT_EQ(r.pad_token_id, g.pad_token_id);
  EXPECT_EQ(r.temperature, g.temperature);
  EXPECT_EQ(r.top_k, g.top_k);
  EXPECT_EQ(r.top_p, g.top_p);
}

TEST(ModelConfigTest, MissingGenerationConfigGivesDefaults) {
  TempDir dir;
  GenerationConfig g = load_generation_config(dir.path());
  EXPECT_TRUE(g.eos_token_ids.empty());
  EXPECT_FALSE(g.bos_token_id.has_value());
  EXPECT_DOUBLE_EQ(g.temperature, 1.0);
  EXPECT_EQ(g.top_k, 50);
  EXPECT_DOUBLE_EQ(g.top_p, 1.0);
  EXPECT_FALSE(g.do_sample);
}

TEST(ModelConfigTest, MalformedGenerationConfigIsAnError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"top_k\": ", "not valid JSON"},
      {"{\"eos_token_id\": 1.5}", "field 'eos_token_id' must be an integer"},
      {"{\"temperature\": \"hot\"}", "field 'temperature' must be a number"},
      {"{\"do_sample\": \"yes\"}", "field 'do_sample' must be true or false"},
      {"{\"top_p\": 1.5}", "field 'top_p' must be in (0, 1], got 1.5"},
      {"{\"top_k\": -1}", "field 'top_k' must be >= 0"},
      {"{\"eos_token_id\": [1, -2]}", "field 'eos_token_id' holds -2"},
      {"{\"pad_token_id\": true}", "field 'pad_token_id' must be an integer"},
      {"{\"temperature\": -0.5}", "field 'temperature' must be >= 0"},
  };
  for (const auto &[text, expect] : cases) {
    TempDir dir;
    write_bytes(dir.file("generation_config.json"), text);
    EXPECT_THAT(error_message([&] { load_generation_config(dir.path()); }),
                HasSubstr(dir.file("generation_config.json") + ": " + expect))
        << text;
  }
}

} // namespace
} // namespace engine
