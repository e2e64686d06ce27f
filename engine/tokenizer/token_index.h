// engine/tokenizer/token_index.h - token spelling -> id lookup.
//
// Loading Qwen3 looks up ~450,000 spellings (three per merge) in a
// 150,000-entry vocabulary; std::unordered_map's chained buckets and
// general-purpose hash made that a fifth of the load time. This is an
// open-addressing table of ids whose spellings live in the caller's arena,
// hashed eight bytes at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

namespace engine {

class TokenIndex {
public:
  /// `spelling(id)` gives the text of an id; it must stay valid (and
  /// unchanged) for as long as the index is used.
  using Spelling = std::function<std::string_view(int32_t)>;

  TokenIndex() = default;
  TokenIndex(size_t expected, Spelling spelling);

  /// Adds `id` under its spelling (growing the table past half full);
  /// false, and no change, when the spelling is already present.
  bool insert(int32_t id);

  /// The id spelled `token`, or -1.
  int32_t find(std::string_view token) const {
    if (slots_.empty())
      return -1;
    for (size_t i = hash(token) & mask_;; i = (i + 1) & mask_) {
      int32_t id = slots_[i] - 1;
      if (id < 0)
        return -1;
      if (spelling_(id) == token)
        return id;
    }
  }

  static uint64_t hash(std::string_view s) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
    const char *p = s.data();
    size_t n = s.size();
    for (; n >= 8; n -= 8, p += 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
  }

private:
  std::vector<int32_t> slots_; ///< id + 1; 0 is empty
  size_t mask_ = 0, count_ = 0;
  Spelling spelling_;
};

} // namespace engine
