// engine/tokenizer/added_tokens.h - finds added tokens (<|im_start|>,
// <think>, ...) in text before anything else sees it.
//
// Added tokens are matched on the text as written, leftmost first and the
// longest at that position, and each becomes its own id, never merged with
// its neighbours; only the text between them is normalized, split and run
// through BPE. Special tokens can be switched off per call so that text
// from a user cannot smuggle control tokens into a prompt.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

class AddedTokenMatcher {
public:
  void add(std::string content, int32_t id, bool special);
  bool empty() const { return tokens_.empty(); }

  struct Match {
    size_t begin = 0, length = 0;
    int32_t id = -1;
  };
  /// The leftmost-longest added token in text[from...], skipping special
  /// tokens unless `with_special`; id -1 when there is none.
  Match find(std::string_view text, size_t from, bool with_special) const;

private:
  struct Token {
    std::string content;
    int32_t id;
    bool special;
  };
  std::vector<Token> tokens_;
  /// Per first byte, token indices longest first.
  std::array<std::vector<uint32_t>, 256> by_first_byte_;
};

} // namespace engine
