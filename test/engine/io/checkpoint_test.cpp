// test/engine/io/checkpoint_test.cpp - Checkpoint: a model folder's weights
// from one file or from shards and an index, with lookups by name and
// shape, and every inconsistency between index and shards an error.
#include "engine/io/checkpoint.h"
#include "engine/io/model_config.h"
#include "engine/io/random_model.h"
#include "engine/io/safetensors_writer.h"
#include "io_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

namespace engine {
namespace {

using test::error_message;
using test::TempDir;
using test::write_bytes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Writes `path` with F32 tensors of the given shapes, element i of the
// tensor named n holding n.size() * 1000 + i.
void write_tensors(
    const std::string &path,
    const std::vector<std::pair<std::string, std::vector<int64_t>>> &tensors) {
  SafetensorsWriter w(path);
  for (const auto &[name, shape] : tensors)
    w.add({name, DType::F32, shape});
  for (const auto &[name, shape] : tensors) {
    TensorSpec spec{name, DType::F32, shape};
    std::vector<float> v(size_t(spec.numel()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = float(name.size() * 1000 + i);
    w.write_tensor(name, v.data(), v.size() * 4);
  }
  w.finish();
}

TEST(CheckpointTest, OpensSingleFileAndLooksUpByNameAndShape) {
  TempDir dir;
  write_tensors(dir.file("model.safetensors"),
                {{"model.norm.weight", {8}}, {"x", {4, 8}}});
  Checkpoint ck(dir.path());
  EXPECT_EQ(ck.folder(), dir.path());
  EXPECT_EQ(ck.source(), dir.file("model.safetensors"));
  EXPECT_EQ(ck.size(), 2u);
  EXPECT_THAT(ck.names(), ElementsAre("model.norm.weight", "x"));
  const TensorView &x = ck.get("x", {4, 8});
  EXPECT_EQ(x.dtype, DType::F32);
  float first;
  std::memcpy(&first, x.data, 4);
  EXPECT_EQ(first, 1000.0f);
  EXPECT_EQ(ck.find("x"), &x);
  EXPECT_EQ(ck.find("y"), nullptr);
  EXPECT_EQ(ck.file_of("x"), dir.file("model.safetensors"));
  EXPECT_EQ(ck.file_of("y"), "");
}

TEST(CheckpointTest, GetReportsMissingTensorAndWrongShape) {
  TempDir dir;
  write_tensors(dir.file("model.safetensors"), {{"x", {4, 8}}});
  Checkpoint ck(dir.path());
  EXPECT_EQ(error_message([&] { ck.get("model.norm.weight", {8}); }),
            dir.file("model.safetensors") +
                ": missing tensor 'model.norm.weight'");
  EXPECT_EQ(error_message([&] {
              ck.get("x", {8, 4});
            }),
            dir.file("model.safetensors") +
                ": tensor 'x' has shape [4, 8], expected [8, 4]");
}

TEST(CheckpointTest, FolderWithoutWeightsIsAnError) {
  TempDir dir;
  EXPECT_EQ(error_message([&] { Checkpoint ck(dir.path()); }),
            dir.path() +
                ": no model.safetensors or model.safetensors.index.json");
  EXPECT_THAT(error_message([&] { Checkpoint ck(dir.file("absent")); }),
              HasSubstr(dir.file("absent") + ": cannot open model folder"));
  write_bytes(dir.file("plain"), "x");
  EXPECT_EQ(error_message([&] { Checkpoint ck(dir.file("plain")); }),
            dir.file("plain") + ": not a folder");
}

TEST(CheckpointTest, MalformedSingleFileErrorNamesIt) {
  TempDir dir;
  write_bytes(dir.file("model.safetensors"), "short");
  EXPECT_THAT(error_message([&] { Checkpoint ck(dir.path()); }),
              HasSubstr(dir.file("model.safetensors") + ": truncated file"));
}

// Two shards and an index that agree.
void write_sharded(const TempDir &dir) {
  write_tensors(dir.file("model-00001-of-00002.safetensors"),
                {{"a", {2}}, {"bb", {3, 2}}});
  write_tensors(dir.file("model-00002-of-00002.safetensors"), {{"ccc", {5}}});
  write_index_json(dir.file("model.safetensors.index.json"),
                   {{"a", "model-00001-of-00002.safetensors"},
                    {"bb", "model-00001-of-00002.safetensors"},
                    {"ccc", "model-00002-of-00002.safetensors"}},
                   8 + 24 + 20);
}

TEST(CheckpointTest, OpensShardsThroughTheIndex) {
  TempDir dir;
  write_sharded(dir);
  Checkpoint ck(dir.path());
  EXPECT_EQ(ck.source(), dir.file("model.safetensors.index.json"));
  EXPECT_EQ(ck.files().size(), 2u);
  EXPECT_THAT(ck.names(), ElementsAre("a", "bb", "ccc"));
  EXPECT_EQ(ck.get("bb", {3, 2}).nbytes, 24u);
  float v;
  std::memcpy(&v, ck.get("ccc", {5}).data, 4);
  EXPECT_EQ(v, 3000.0f);
  EXPECT_EQ(ck.file_of("ccc"), dir.file("model-00002-of-00002.safetensors"));
  EXPECT_EQ(error_message([&] { ck.get("d", {1}); }),
            dir.file("model.safetensors.index.json") + ": missing tensor 'd'");
  EXPECT_EQ(error_message([&] { ck.get("ccc", {4}); }),
            dir.file("model-00002-of-00002.safetensors") +
                ": tensor 'ccc' has shape [5], expected [4]");
}

TEST(CheckpointTest, PrefersTheSingleFileWhenBothExist) {
  TempDir dir;
  write_sharded(dir);
  write_tensors(dir.file("model.safetensors"), {{"only", {1}}});
  Checkpoint ck(dir.path());
  EXPECT_THAT(ck.names(), ElementsAre("only"));
}

TEST(CheckpointTest, MovedCheckpointKeepsItsViews) {
  TempDir dir;
  write_sharded(dir);
  Checkpoint a(dir.path());
  const TensorView *bb = a.find("bb");
  Checkpoint b(std::move(a));
  EXPECT_EQ(b.find("bb"), bb);
  EXPECT_EQ(b.get("bb", {3, 2}).name, "bb");
}

TEST(CheckpointTest, InconsistentIndexIsAnError) {
  const std::string s1 = "model-00001-of-00002.safetensors";
  const std::string s2 = "model-00002-of-00002.safetensors";
  struct Case {
    const char *what;
    std::function<void(const TempDir &)> damage;
    std::string expect; // after "<folder>/"
  };
  std::vector<Case> cases = {
      {"missing shard",
       [&](const TempDir &d) { std::remove(d.file(s2).c_str()); },
       "model.safetensors.index.json: shard '" + s2 + "' does not exist"},
      {"tensor not in its shard",
       [&](const TempDir &d) {
         write_index_json(d.file("model.safetensors.index.json"),
                          {{"a", s1}, {"bb", s1}, {"ccc", s1}}, 0);
       },
       "model.safetensors.index.json: tensor 'ccc' is mapped to '" + s1 +
           "', which does not hold it"},
      {"shard tensor missing from index",
       [&](const TempDir &d) {
         write_index_json(d.file("model.safetensors.index.json"),
                          {{"a", s1}, {"ccc", s2}}, 0);
       },
       "model.safetensors.index.json: tensor 'bb' in '" + s1 +
           "' is not in weight_map"},
      {"tensor in two shards",
       [&](const TempDir &d) {
         write_tensors(d.file(s2), {{"ccc", {5}}, {"a", {2}}});
       },
       ": tensor 'a' is in both '" + s1 + "' and '" + s2 + "'"},
      {"index not JSON",
       [&](const TempDir &d) {
         write_bytes(d.file("model.safetensors.index.json"),
                     "{\"weight_map\":");
       },
       "model.safetensors.index.json: not valid JSON (line 1"},
      {"no weight_map",
       [&](const TempDir &d) {
         write_bytes(d.file("model.safetensors.index.json"),
                     "{\"metadata\":{}}");
       },
       "model.safetensors.index.json: missing field 'weight_map'"},
      {"weight_map of numbers",
       [&](const TempDir &d) {
         write_bytes(d.file("model.safetensors.index.json"),
                     "{\"weight_map\":{\"a\":1}}");
       },
       "model.safetensors.index.json: weight_map entry 'a' must be a string, "
       "not an integer"},
      {"shard outside the folder",
       [&](const TempDir &d) {
         write_bytes(d.file("model.safetensors.index.json"),
                     "{\"weight_map\":{\"a\":\"../model.safetensors\"}}");
       },
       "model.safetensors.index.json: shard '../model.safetensors' is not a "
       "file name in the folder"},
      {"broken shard",
       [&](const TempDir &d) {
         write_bytes(d.file(s2), std::string("\x10\0\0\0\0\0\0\0{", 9));
       },
       s2 + ": truncated file: header length"},
  };
  for (const Case &c : cases) {
    TempDir dir;
    write_sharded(dir);
    c.damage(dir);
    const std::string msg = error_message([&] { Checkpoint ck(dir.path()); });
    const std::string want =
        c.expect[0] == ':' ? dir.path() + c.expect : dir.file(c.expect);
    EXPECT_THAT(msg, HasSubstr(want)) << c.what;
  }
}

TEST(CheckpointTest, ReadsTheGoldenFoldersFromAnIndependentWriter) {
  // test/engine/golden holds model folders written by a numpy script, not by
  // SafetensorsWriter: reading them checks the format, not just a round trip.
  const std::string golden = std::string(ENGINE_TEST_DATA) + "/../golden";
  std::error_code ec;
  if (!std::filesystem::is_directory(golden, ec))
    GTEST_SKIP() << "no " << golden;
  int folders = 0;
  for (const auto &entry : std::filesystem::directory_iterator(golden)) {
    if (!std::filesystem::exists(entry.path() / "config.json"))
      continue;
    const std::string folder = entry.path().string();
    ModelConfig c = load_model_config(folder);
    GenerationConfig g = load_generation_config(folder);
    EXPECT_FALSE(g.eos_token_ids.empty()) << folder;
    Checkpoint ck(folder);
    const TensorView &embed =
        ck.get("model.embed_tokens.weight", {c.vocab_size, c.hidden_size});
    const bool has_head = ck.find("lm_head.weight") != nullptr;
    EXPECT_TRUE(has_head || c.tie_word_embeddings) << folder;
    const auto specs = qwen3_tensor_specs(c, embed.dtype, has_head);
    EXPECT_EQ(ck.size(), specs.size()) << folder;
    for (const TensorSpec &spec : specs)
      EXPECT_EQ(ck.get(spec.name, spec.shape).dtype, embed.dtype) << spec.name;
    ++folders;
  }
  EXPECT_GT(folders, 0);
}

} // namespace
} // namespace engine
