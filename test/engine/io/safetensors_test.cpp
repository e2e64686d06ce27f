// test/engine/io/safetensors_test.cpp - SafetensorsFile and SafetensorsWriter:
// what the writer writes the reader reads back byte for byte, and every
// malformed file is an engine::Error naming the file and the problem.
#include "engine/io/safetensors.h"
#include "engine/io/safetensors_writer.h"
#include "io_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace engine {
namespace {

using test::error_message;
using test::safetensors_bytes;
using test::TempDir;
using test::write_bytes;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string pattern(size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i)
    s[i] = char((i * 131 + size_t(seed) * 17 + (i >> 7)) & 0xff);
  return s;
}

TEST(SafetensorsTest, WriterOutputReadsBackExactly) {
  TempDir dir;
  const std::string path = dir.file("a.safetensors");
  struct T {
    TensorSpec spec;
    std::string bytes;
  };
  std::vector<T> ts = {
      {{"w.bf16", DType::BF16, {3, 5}}, {}},
      {{"w.f32", DType::F32, {2, 3, 4}}, {}},
      {{"scalar", DType::F16, {}}, {}},
      {{"empty", DType::F32, {0, 7}}, {}},
      {{"odd", DType::F16, {3}}, {}},
  };
  {
    SafetensorsWriter w(path);
    for (auto &t : ts) {
      w.add(t.spec);
      t.bytes = pattern(t.spec.nbytes(), unsigned(t.bytes.size() + 1));
    }
    for (auto &t : ts)
      w.write_tensor(t.spec.name, t.bytes.data(), t.bytes.size());
    w.finish();
    EXPECT_EQ(w.file_size(), test::read_bytes(path).size());
  }
  SafetensorsFile f(path);
  EXPECT_EQ(f.path(), path);
  EXPECT_EQ(f.data_offset() % 8, 0u) << "data must start 8-byte aligned";
  EXPECT_EQ(f.metadata(),
            (std::map<std::string, std::string>{{"format", "pt"}}));
  ASSERT_EQ(f.tensors().size(), ts.size());
  for (size_t i = 1; i < f.tensors().size(); ++i)
    EXPECT_LT(f.tensors()[i - 1].name, f.tensors()[i].name);
  for (const auto &t : ts) {
    const TensorView *v = f.find(t.spec.name);
    ASSERT_NE(v, nullptr) << t.spec.name;
    EXPECT_EQ(v->dtype, t.spec.dtype);
    EXPECT_EQ(v->shape, t.spec.shape);
    EXPECT_EQ(v->numel(), t.spec.numel());
    ASSERT_EQ(v->nbytes, t.bytes.size());
    EXPECT_EQ(std::memcmp(v->data, t.bytes.data(), v->nbytes), 0)
        << t.spec.name;
  }
  EXPECT_EQ(f.find("missing"), nullptr);
  EXPECT_EQ(f.find("w"), nullptr);
  SafetensorsFile populated(path, /*populate=*/true);
  for (const auto &t : ts)
    EXPECT_EQ(std::memcmp(populated.find(t.spec.name)->data, t.bytes.data(),
                          t.bytes.size()),
              0);
}

TEST(SafetensorsTest, WritesInAnyPiecesGiveTheSameFile) {
  TempDir dir;
  std::vector<TensorSpec> specs = {{"a", DType::BF16, {1000}},
                                   {"b", DType::F32, {333}},
                                   {"c", DType::F16, {7, 9}}};
  uint64_t total = 0;
  for (auto &s : specs)
    total += s.nbytes();
  const std::string data = pattern(total, 3);
  auto write = [&](const std::string &path, size_t piece) {
    SafetensorsWriter w(path);
    for (auto &s : specs)
      w.add(s);
    for (size_t at = 0; at < data.size(); at += piece)
      w.write(data.data() + at, std::min(piece, data.size() - at));
    w.finish();
  };
  write(dir.file("whole"), data.size());
  write(dir.file("pieces"), 37); // pieces straddle tensor boundaries
  EXPECT_EQ(test::read_bytes(dir.file("whole")),
            test::read_bytes(dir.file("pieces")));
}

TEST(SafetensorsTest, WriterRejectsMisuseNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("w.safetensors");
  {
    SafetensorsWriter w(path);
    w.add({"a", DType::F32, {2}});
    EXPECT_THAT(error_message([&] {
                  w.add({"a", DType::F32, {2}});
                }),
                AllOf(HasSubstr(path), HasSubstr("'a' declared twice")));
    EXPECT_THAT(error_message([&] {
                  w.add({"__metadata__", DType::F32, {}});
                }),
                HasSubstr("reserved"));
    EXPECT_THAT(error_message([&] {
                  w.add({"n", DType::F32, {2, -1}});
                }),
                HasSubstr("negative dimension"));
    float x[3] = {1, 2, 3};
    EXPECT_THAT(error_message([&] { w.write_tensor("a", x, 12); }),
                HasSubstr("has 8 bytes, got 12"));
    EXPECT_THAT(error_message([&] { w.write(x, 12); }),
                AllOf(HasSubstr(path), HasSubstr("only 8 were declared")));
    w.write(x, 4);
    EXPECT_THAT(error_message([&] {
                  w.add({"late", DType::F32, {1}});
                }),
                HasSubstr("after data was written"));
    EXPECT_THAT(error_message([&] { w.finish(); }),
                AllOf(HasSubstr(path), HasSubstr("after 4 of 8 bytes")));
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0)
      << "an unfinished file must not be left behind";
  EXPECT_THAT(error_message([&] {
                SafetensorsWriter w(dir.file("no/such/folder/x.safetensors"));
              }),
              AllOf(HasSubstr("no/such/folder/x.safetensors"),
                    HasSubstr("cannot create")));
}

TEST(SafetensorsTest, WriteFailuresNameTheFile) {
  if (::access("/dev/full", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/full";
  std::vector<char> big(8u << 20);
  {
    SafetensorsWriter w("/dev/full");
    w.add({"x", DType::BF16, {int64_t(big.size() / 2)}});
    EXPECT_EQ(error_message([&] {
                w.write(big.data(), big.size());
                w.finish();
              }),
              "/dev/full: write failed (No space left on device)");
  }
  EXPECT_EQ(::access("/dev/full", F_OK), 0) << "a device is never removed";
  EXPECT_EQ(error_message([] { write_file("/dev/full", "{}"); }),
            "/dev/full: write failed (No space left on device)");
}

TEST(SafetensorsTest, ReadsSpacePaddedHeaderWithoutMetadata) {
  TempDir dir;
  const std::string path = dir.file("p.safetensors");
  write_bytes(path,
              safetensors_bytes(
                  R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})"
                  "      ",
                  std::string(8, '\x01')));
  SafetensorsFile f(path);
  EXPECT_TRUE(f.metadata().empty());
  ASSERT_EQ(f.tensors().size(), 1u);
  EXPECT_EQ(f.tensors()[0].nbytes, 8u);
}

TEST(SafetensorsTest, FromMemoryReadsTheSameAsAFile) {
  const std::string bytes = safetensors_bytes(
      R"({"__metadata__":{"k":"v"},"t":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}})",
      "abcdefgh");
  SafetensorsFile f =
      SafetensorsFile::from_memory(bytes.data(), bytes.size(), "in-memory");
  EXPECT_EQ(f.path(), "in-memory");
  EXPECT_EQ(f.metadata().at("k"), "v");
  const TensorView *t = f.find("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->data, bytes.data() + bytes.size() - 8) << "no copy";
  // A buffer's pages cannot be dropped and read again, a file's can.
  EXPECT_FALSE(t->file_mapped);
  EXPECT_THAT(error_message(
                  [] { SafetensorsFile::from_memory("abc", 3, "in-memory"); }),
              AllOf(HasSubstr("in-memory: truncated"), Not(HasSubstr("\n"))));
}

TEST(SafetensorsTest, MovedFileKeepsItsViewsValid) {
  TempDir dir;
  const std::string path = dir.file("m.safetensors");
  write_bytes(path,
              safetensors_bytes(
                  R"({"x":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})",
                  "12345678"));
  SafetensorsFile a(path);
  const TensorView *before = a.find("x");
  EXPECT_TRUE(before->file_mapped);
  SafetensorsFile b(std::move(a));
  EXPECT_EQ(b.find("x"), before);
  EXPECT_EQ(std::memcmp(b.find("x")->data, "12345678", 8), 0);
  SafetensorsFile c(path);
  c = std::move(b);
  EXPECT_EQ(std::memcmp(c.find("x")->data, "12345678", 8), 0);
}

// One malformed file: its bytes and what the error must say about it.
struct Malformed {
  const char *name;
  std::string bytes;
  std::vector<std::string> expect;
};

std::string tensor_file(std::string_view entries, size_t data_bytes) {
  return safetensors_bytes("{" + std::string(entries) + "}",
                           std::string(data_bytes, '\0'));
}

std::vector<Malformed> malformed_files() {
  std::string huge_len(8, '\0');
  huge_len[3] = 0x10; // 256 MiB
  std::string beyond = safetensors_bytes("{}");
  beyond[0] = char(100); // claims 100 header bytes, has 2
  return {
      {"empty", "", {"truncated file (0 bytes"}},
      {"short", std::string("\x02\0\0", 3), {"truncated file (3 bytes"}},
      {"header_beyond_file", beyond, {"header length 100 exceeds the 2 bytes"}},
      {"header_too_large", huge_len + "{}", {"exceeds the 100 MiB limit"}},
      {"not_json",
       safetensors_bytes("{\"a\": nope}"),
       {"header is not valid JSON (error at byte"}},
      {"truncated_json",
       safetensors_bytes("{\"a\": {\"dtype\""),
       {"header is not valid JSON"}},
      {"not_object",
       safetensors_bytes("[1, 2]"),
       {"header is not a JSON object (it is an array)"}},
      {"offsets_beyond_data",
       tensor_file(R"("x":{"dtype":"F32","shape":[16],"data_offsets":[0,64]})",
                   60),
       {"tensor 'x' data_offsets [0, 64] exceed the data (60 bytes)"}},
      {"offsets_reversed",
       tensor_file(R"("x":{"dtype":"F32","shape":[0],"data_offsets":[8,4]})",
                   8),
       {"tensor 'x' data_offsets [8, 4] end before they begin"}},
      {"byte_count_mismatch",
       tensor_file(
           R"("x":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,10]})", 10),
       {"tensor 'x' data_offsets [0, 10] hold 10 bytes, but BF16 [2, 3] "
        "needs 12"}},
      {"overlap",
       tensor_file(R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                   R"("b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]})",
                   24),
       {"tensors 'a' [0, 16] and 'b' [8, 24] overlap"}},
      {"unknown_dtype",
       tensor_file(R"("ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]})",
                   8),
       {"tensor 'ids' has unsupported dtype 'I64' (supported: F32, F16, "
        "BF16)"}},
      {"dtype_not_string",
       tensor_file(R"("x":{"dtype":3,"shape":[1],"data_offsets":[0,4]})", 4),
       {"tensor 'x' dtype must be a string, not an integer"}},
      {"negative_shape",
       tensor_file(R"("x":{"dtype":"F32","shape":[2,-1],"data_offsets":[0,0]})",
                   0),
       {"tensor 'x' has a negative dimension -1 in its shape"}},
      {"fractional_shape",
       tensor_file(R"("x":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})",
                   4),
       {"tensor 'x' shape must hold non-negative integers, not a number"}},
      {"shape_not_array",
       tensor_file(R"("x":{"dtype":"F32","shape":"4","data_offsets":[0,16]})",
                   16),
       {"tensor 'x' shape must be an array, not a string"}},
      {"shape_overflow",
       tensor_file(R"("x":{"dtype":"F32","shape":[4294967296,4294967296],)"
                   R"("data_offsets":[0,0]})",
                   0),
       {"tensor 'x' shape [4294967296, 4294967296] has too many elements"}},
      {"offsets_one_number",
       tensor_file(R"("x":{"dtype":"F32","shape":[1],"data_offsets":[4]})", 4),
       {"tensor 'x' data_offsets must be [begin, end], not an array of 1"}},
      {"offsets_negative",
       tensor_file(R"("x":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]})",
                   4),
       {"data_offsets must be two non-negative integers"}},
      {"missing_field",
       tensor_file(R"("x":{"shape":[1],"data_offsets":[0,4]})", 4),
       {"tensor 'x' has no 'dtype'"}},
      {"unknown_field",
       tensor_file(R"("x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],)"
                   R"("strides":[1]})",
                   4),
       {"tensor 'x' has an unknown field 'strides'"}},
      {"entry_not_object",
       tensor_file(R"("x":[1,2])", 0),
       {"tensor 'x' must be an object, not an array"}},
      {"metadata_not_strings",
       tensor_file(R"("__metadata__":{"format":1})", 0),
       {"__metadata__ entry 'format' must be a string, not an integer"}},
      {"duplicate_name",
       tensor_file(R"("x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                   R"("x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]})",
                   8),
       {"header names 'x' twice"}},
      {"name_with_newline",
       tensor_file(R"("a\nb":{"dtype":"I8","shape":[1],"data_offsets":[0,1]})",
                   1),
       {"tensor 'a\\x0ab' has unsupported dtype"}},
  };
}

TEST(SafetensorsTest, MalformedFilesAreErrorsNamingFileAndProblem) {
  TempDir dir;
  for (const Malformed &m : malformed_files()) {
    const std::string path = dir.file(std::string(m.name) + ".safetensors");
    write_bytes(path, m.bytes);
    const std::string msg = error_message([&] { SafetensorsFile f(path); });
    EXPECT_THAT(msg, HasSubstr(path + ": ")) << m.name;
    for (const std::string &e : m.expect)
      EXPECT_THAT(msg, HasSubstr(e)) << m.name;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << m.name;
  }
}

TEST(SafetensorsTest, EmptyTensorsNeverOverlap) {
  const std::string bytes =
      tensor_file(R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                  R"("e":{"dtype":"F32","shape":[0],"data_offsets":[8,8]})",
                  16);
  SafetensorsFile f =
      SafetensorsFile::from_memory(bytes.data(), bytes.size(), "mem");
  EXPECT_EQ(f.find("e")->nbytes, 0u);
}

TEST(SafetensorsTest, UnopenableFilesAreErrors) {
  TempDir dir;
  EXPECT_THAT(error_message([&] { SafetensorsFile f(dir.file("none")); }),
              AllOf(HasSubstr(dir.file("none") + ": cannot open"),
                    HasSubstr("No such file")));
  EXPECT_THAT(error_message([&] { SafetensorsFile f(dir.path()); }),
              HasSubstr(dir.path() + ": not a regular file"));
}

TEST(SafetensorsTest, FuzzSeedCorpusHoldsTheFilesItsNamesPromise) {
  // valid_* parse and bad_* do not, so the fuzzer starts from both sides.
  int valid = 0, bad = 0;
  for (const auto &entry : std::filesystem::directory_iterator(
           std::string(ENGINE_TEST_DATA) + "/fuzz-corpus")) {
    const std::string name = entry.path().filename().string();
    const std::string msg =
        error_message([&] { SafetensorsFile f(entry.path().string()); });
    if (name.rfind("valid_", 0) == 0) {
      EXPECT_EQ(msg, "(no error)") << name;
      ++valid;
    } else {
      EXPECT_NE(msg, "(no error)") << name;
      ++bad;
    }
  }
  EXPECT_GE(valid, 3);
  EXPECT_GE(bad, 5);
}

} // namespace
} // namespace engine
