// test/engine/io/make_model_test.cpp - random model folders
// (write_random_model and the engine-make-model program): what they write is
// read back by Checkpoint and load_model_config with every Qwen3 tensor, the
// values are a function of the seed alone, and bad options are one-line
// errors with exit status 2.
#include "engine/io/checkpoint.h"
#include "engine/io/model_config.h"
#include "engine/io/random_model.h"
#include "io_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sys/wait.h>

namespace engine {
namespace {

using test::error_message;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The tiny preset with a small vocabulary, so each write is ~1 MB.
RandomModelOptions small_options() {
  RandomModelOptions o;
  o.config = model_preset("tiny");
  o.config.vocab_size = 1000;
  return o;
}

std::vector<float> to_f32(const TensorView &t) {
  std::vector<float> out(size_t(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t h;
    switch (t.dtype) {
    case DType::F32:
      std::memcpy(&out[i], (const char *)t.data + 4 * i, 4);
      break;
    case DType::BF16:
      std::memcpy(&h, (const char *)t.data + 2 * i, 2);
      out[i] = bf16_to_f32(h);
      break;
    case DType::F16:
      std::memcpy(&h, (const char *)t.data + 2 * i, 2);
      out[i] = f16_to_f32(h);
      break;
    }
  }
  return out;
}

bool same_bytes(const TensorView &a, const TensorView &b) {
  return a.nbytes == b.nbytes && std::memcmp(a.data, b.data, a.nbytes) == 0;
}

TEST(MakeModelTest, TinyPresetFolderHasEveryQwen3TensorAndConfig) {
  TempDir dir;
  RandomModelOptions o;
  o.config = model_preset("tiny");
  RandomModelSummary s = write_random_model(dir.path(), o);

  ModelConfig c = load_model_config(dir.path());
  EXPECT_EQ(c.vocab_size, 151936);
  EXPECT_EQ(c.hidden_size, 64);
  EXPECT_EQ(c.intermediate_size, 128);
  EXPECT_EQ(c.num_hidden_layers, 2);
  EXPECT_EQ(c.num_attention_heads, 4);
  EXPECT_EQ(c.num_key_value_heads, 2);
  EXPECT_EQ(c.head_dim, 32);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_EQ(c.torch_dtype, "bfloat16");
  EXPECT_THAT(c.eos_token_ids, ElementsAre(151645));
  GenerationConfig g = load_generation_config(dir.path());
  EXPECT_THAT(g.eos_token_ids, ElementsAre(151645, 151643));
  EXPECT_DOUBLE_EQ(g.temperature, 0.6);
  EXPECT_EQ(g.top_k, 20);
  EXPECT_DOUBLE_EQ(g.top_p, 0.95);

  Checkpoint ck(dir.path());
  const auto specs = qwen3_tensor_specs(c, DType::BF16, false);
  ASSERT_EQ(ck.size(), specs.size());
  EXPECT_EQ(specs.size(), 1 + 2 * 11 + 1u);
  for (const TensorSpec &spec : specs)
    EXPECT_EQ(ck.get(spec.name, spec.shape).dtype, DType::BF16) << spec.name;
  // Spot-check the shapes that are easy to get wrong: head_dim 32 is not
  // hidden/heads (16).
  EXPECT_EQ(ck.get("model.layers.1.self_attn.q_proj.weight", {128, 64}).numel(),
            128 * 64);
  ck.get("model.layers.1.self_attn.k_proj.weight", {64, 64});
  ck.get("model.layers.1.self_attn.o_proj.weight", {64, 128});
  ck.get("model.layers.1.self_attn.q_norm.weight", {32});
  ck.get("model.layers.0.mlp.down_proj.weight", {64, 128});
  ck.get("model.embed_tokens.weight", {151936, 64});
  EXPECT_EQ(ck.find("lm_head.weight"), nullptr) << "tied: no lm_head";
  EXPECT_EQ(s.parameters, c.num_parameters());
  EXPECT_EQ(s.tensors, specs.size());
  EXPECT_EQ(s.bytes, ck.files()[0].file_size());
}

TEST(MakeModelTest, SameSeedGivesIdenticalFilesAndAnotherSeedDoesNot) {
  TempDir a, b, c;
  RandomModelOptions o = small_options();
  write_random_model(a.path(), o);
  write_random_model(b.path(), o);
  o.seed = 1;
  write_random_model(c.path(), o);
  for (const char *f :
       {"model.safetensors", "config.json", "generation_config.json"})
    EXPECT_EQ(read_bytes(a.file(f)), read_bytes(b.file(f))) << f;
  EXPECT_EQ(read_bytes(a.file("config.json")),
            read_bytes(c.file("config.json")));
  Checkpoint ca(a.path()), cc(c.path());
  for (const std::string &name : ca.names())
    EXPECT_FALSE(same_bytes(*ca.find(name), *cc.find(name))) << name;
}

TEST(MakeModelTest, ValuesFollowTheDocumentedDistributions) {
  TempDir dir;
  RandomModelOptions o = small_options();
  o.dtype = DType::F32;
  o.scale = 0.05;
  write_random_model(dir.path(), o);
  Checkpoint ck(dir.path());
  auto stats = [&](const std::string &name) {
    std::vector<float> v = to_f32(*ck.find(name));
    const double n = double(v.size());
    double sum = 0, sq = 0, max_abs = 0;
    for (float x : v)
      sum += x;
    double mean = sum / n;
    for (float x : v) {
      sq += (x - mean) * (x - mean);
      max_abs = std::max(max_abs, std::fabs(x - mean));
    }
    return std::array<double, 3>{mean, std::sqrt(sq / n), max_abs};
  };
  for (const char *linear : {"model.layers.0.mlp.gate_proj.weight",
                             "model.layers.1.self_attn.q_proj.weight"}) {
    auto [mean, sd, max_abs] = stats(linear);
    EXPECT_NEAR(mean, 0.0, 0.002) << linear;
    EXPECT_NEAR(sd, 0.05, 0.002) << linear;
    EXPECT_LE(max_abs, 3.47 * 0.05) << "sum of four uniforms is bounded";
  }
  auto [emb_mean, emb_sd, emb_max] = stats("model.embed_tokens.weight");
  EXPECT_NEAR(emb_mean, 0.0, 0.002);
  EXPECT_NEAR(emb_sd, random_embedding_std(o.config), 0.003);
  EXPECT_DOUBLE_EQ(random_embedding_std(o.config), 1.0 / 8);
  // Norm weights are 1 + 0.1 N(0, 1): deliberately not all ones.
  auto [norm_mean, norm_sd, norm_max] =
      stats("model.layers.0.input_layernorm.weight");
  EXPECT_NEAR(norm_mean, 1.0, 0.04);
  EXPECT_NEAR(norm_sd, 0.1, 0.03);
  EXPECT_FALSE(same_bytes(*ck.find("model.layers.0.self_attn.q_norm.weight"),
                          *ck.find("model.layers.0.self_attn.k_norm.weight")));
  (void)emb_max;
  (void)norm_max;
}

TEST(MakeModelTest, ValuesDoNotDependOnThreadsShardsOrDtype) {
  TempDir one, three, sharded, half, f32;
  RandomModelOptions o = small_options();
  o.threads = 1;
  write_random_model(one.path(), o);
  o.threads = 3;
  write_random_model(three.path(), o);
  EXPECT_EQ(read_bytes(one.file("model.safetensors")),
            read_bytes(three.file("model.safetensors")));

  o.shards = 3;
  write_random_model(sharded.path(), o);
  Checkpoint single(one.path()), shards(sharded.path());
  EXPECT_EQ(shards.files().size(), 3u);
  for (const char *f :
       {"model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
        "model-00003-of-00003.safetensors"})
    EXPECT_FALSE(read_bytes(sharded.file(f)).empty()) << f;
  ASSERT_EQ(shards.names(), single.names());
  for (const std::string &name : single.names())
    EXPECT_TRUE(same_bytes(*single.find(name), *shards.find(name))) << name;

  o.shards = 1;
  o.dtype = DType::F32;
  write_random_model(f32.path(), o);
  o.dtype = DType::F16;
  write_random_model(half.path(), o);
  Checkpoint c32(f32.path()), c16(half.path());
  for (const std::string &name : single.names()) {
    std::vector<float> x = to_f32(*c32.find(name));
    const auto *b = static_cast<const uint16_t *>(single.find(name)->data);
    const auto *h = static_cast<const uint16_t *>(c16.find(name)->data);
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(b[i], f32_to_bf16(x[i])) << name << "[" << i << "]";
      ASSERT_EQ(h[i], f32_to_f16(x[i])) << name << "[" << i << "]";
    }
  }
}

TEST(MakeModelTest, ShardsSplitTheBytesEvenlyInFileOrder) {
  // Tiny with Qwen3's vocabulary: the embedding and the stored lm_head are
  // 19 MB each and the layers 0.2 MB, so three even shards are exactly
  // [embedding], [layers + norm], [lm_head].
  TempDir dir;
  RandomModelOptions o;
  o.config = model_preset("tiny");
  o.store_lm_head = true;
  o.shards = 3;
  write_random_model(dir.path(), o);
  Checkpoint ck(dir.path());
  ASSERT_EQ(ck.files().size(), 3u);
  ASSERT_EQ(ck.files()[0].tensors().size(), 1u);
  EXPECT_EQ(ck.files()[0].tensors()[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(ck.files()[1].tensors().size(), 23u);
  ASSERT_EQ(ck.files()[2].tensors().size(), 1u);
  EXPECT_EQ(ck.files()[2].tensors()[0].name, "lm_head.weight");
}

TEST(MakeModelTest, LmHeadIsACopyWhenStoredAndItsOwnWhenUntied) {
  TempDir stored, untied;
  RandomModelOptions o = small_options();
  o.store_lm_head = true;
  write_random_model(stored.path(), o);
  Checkpoint s(stored.path());
  EXPECT_TRUE(load_model_config(stored.path()).tie_word_embeddings);
  EXPECT_TRUE(same_bytes(*s.find("lm_head.weight"),
                         *s.find("model.embed_tokens.weight")));
  o.store_lm_head = false;
  o.config.tie_word_embeddings = false;
  write_random_model(untied.path(), o);
  Checkpoint u(untied.path());
  EXPECT_FALSE(load_model_config(untied.path()).tie_word_embeddings);
  EXPECT_FALSE(same_bytes(u.get("lm_head.weight", {1000, 64}),
                          *u.find("model.embed_tokens.weight")));
}

TEST(MakeModelTest, SmallVocabularyGetsNoQwenSpecialTokens) {
  TempDir dir;
  write_random_model(dir.path(), small_options());
  EXPECT_TRUE(load_model_config(dir.path()).eos_token_ids.empty());
  EXPECT_TRUE(load_generation_config(dir.path()).eos_token_ids.empty());
}

TEST(MakeModelTest, NonEmptyFolderNeedsForceWhichReplacesOldWeights) {
  TempDir dir;
  write_bytes(dir.file("notes.txt"), "keep me");
  RandomModelOptions o = small_options();
  EXPECT_EQ(error_message([&] { write_random_model(dir.path(), o); }),
            dir.path() + ": folder is not empty (use --force to overwrite)");
  o.force = true;
  o.shards = 2;
  write_random_model(dir.path(), o);
  o.shards = 1;
  write_random_model(dir.path(), o);
  EXPECT_EQ(read_bytes(dir.file("notes.txt")), "keep me");
  for (const char *stale :
       {"model.safetensors.index.json", "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors"})
    EXPECT_TRUE(read_bytes(dir.file(stale)).empty()) << stale << " left over";
  EXPECT_EQ(Checkpoint(dir.path()).source(), dir.file("model.safetensors"));
  write_bytes(dir.file("file"), "x");
  EXPECT_EQ(error_message([&] { write_random_model(dir.file("file"), o); }),
            dir.file("file") + ": exists and is not a folder");
}

TEST(MakeModelTest, BadOptionsAreErrorsNamingTheFolder) {
  TempDir dir;
  const std::string out = dir.file("m");
  RandomModelOptions o = small_options();
  o.shards = 0;
  EXPECT_THAT(error_message([&] { write_random_model(out, o); }),
              HasSubstr(out + ": shards must be between 1 and the number of "
                              "tensors (24), got 0"));
  o.shards = 25;
  EXPECT_THAT(error_message([&] { write_random_model(out, o); }),
              HasSubstr("got 25"));
  o = small_options();
  o.config.num_key_value_heads = 3;
  EXPECT_EQ(error_message([&] { write_random_model(out, o); }),
            out + ": num_attention_heads (4) is not a multiple of "
                  "num_key_value_heads (3)");
  o = small_options();
  o.tokenizer_dir = dir.file("no-tokenizer");
  EXPECT_EQ(error_message([&] { write_random_model(out, o); }),
            dir.file("no-tokenizer") + ": no tokenizer.json");
  EXPECT_THAT(error_message([] { model_preset("huge"); }),
              HasSubstr("unknown model preset 'huge'"));
}

TEST(MakeModelTest, CopiesTheTokenizerFiles) {
  TempDir tok, out;
  write_bytes(tok.file("tokenizer.json"), "{\"model\": {}}");
  write_bytes(tok.file("tokenizer_config.json"), "{\"x\": 1}");
  RandomModelOptions o = small_options();
  o.tokenizer_dir = tok.path();
  o.force = true;
  write_random_model(out.path(), o);
  EXPECT_EQ(read_bytes(out.file("tokenizer.json")), "{\"model\": {}}");
  EXPECT_EQ(read_bytes(out.file("tokenizer_config.json")), "{\"x\": 1}");
}

#ifdef ENGINE_MAKE_MODEL
struct ToolRun {
  int status;
  std::string output; // stdout and stderr together
};

ToolRun run_tool(const std::string &args) {
  std::string cmd = std::string(ENGINE_MAKE_MODEL) + " " + args + " 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p)
    return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

TEST(MakeModelTest, ProgramWritesALoadableFolderAndReportsIt) {
  TempDir dir;
  const std::string out = dir.file("tiny");
  ToolRun r = run_tool("--out " + out +
                       " --preset tiny --vocab-size 512 "
                       "--layers 3 --untie --dtype f16 --seed 7 --shards 2");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote " + out + ": "));
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1);
  ModelConfig c = load_model_config(out);
  EXPECT_EQ(c.vocab_size, 512);
  EXPECT_EQ(c.num_hidden_layers, 3);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_EQ(c.torch_dtype, "float16");
  EXPECT_THAT(r.output, HasSubstr(": " + std::to_string(c.num_parameters()) +
                                  " parameters, 36 tensors"));
  Checkpoint ck(out);
  EXPECT_EQ(ck.files().size(), 2u);
  EXPECT_EQ(ck.get("lm_head.weight", {512, 64}).dtype, DType::F16);
}

TEST(MakeModelTest, ProgramRejectsBadOptionsWithOneLineAndStatus2) {
  TempDir dir;
  const std::string out = dir.file("m");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--out " + out + " --preset huge", "--preset"},
      {"--preset tiny", "--out"},
      {"--out " + out + " --heads 3", "is not a multiple of"},
      {"--out " + out + " --dtype int8", "--dtype"},
      {"--out " + out + " --tie --untie", "excludes"},
      {"--out " + out + " --layers 0", "num_hidden_layers must be positive"},
      {"--out " + out + " --shards 99", "shards must be between"},
      {"--out " + out + " --hidden-size x", "--hidden-size"},
      {"--out " + dir.path(), "use --force"},
  };
  write_bytes(dir.file("occupied"), "x");
  for (const auto &[args, expect] : cases) {
    ToolRun r = run_tool(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(expect)) << args;
    EXPECT_THAT(r.output, HasSubstr("engine-make-model: ")) << args;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1)
        << args << "\n"
        << r.output;
  }
}
#endif

} // namespace
} // namespace engine
