// test/engine/io/io_test_util.h - temporary folders and hand-made files for
// the model-file tests.
//
// Malformed inputs are written byte by byte here, in a fresh temporary
// folder per test, so each test states exactly the bytes it feeds the reader.
#pragma once

#include "engine/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace engine::test {

/// A fresh folder under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/engine-io-XXXXXX";
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(std::string_view name) const {
    return path_ + "/" + std::string(name);
  }

private:
  std::string path_;
};

inline void write_bytes(const std::string &path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

inline std::string read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A safetensors image: the header's length (8 bytes, little-endian), the
/// header text, then `data`.
inline std::string safetensors_bytes(std::string_view header,
                                     std::string_view data = {}) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[i] = char((n >> (8 * i)) & 0xff);
  out += header;
  out += data;
  return out;
}

/// The message of the engine::Error that `f` throws, or "(no error)".
template <class F> std::string error_message(F &&f) {
  try {
    f();
  } catch (const engine::Error &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace engine::test
