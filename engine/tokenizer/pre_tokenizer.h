// engine/tokenizer/pre_tokenizer.h - the regex splits that cut normalized
// text into pre-tokens before BPE.
//
// Hugging Face's Split pre-tokenizer with behavior "Isolated" keeps every
// regex match as a piece of its own and every stretch between matches as
// another; a Sequence applies each split to the pieces of the one before.
// The patterns come from tokenizer.json and run under PCRE2 with UTF and
// UCP (so \s, \p{L}, \p{N} and (?i:...) have their Unicode meanings) and
// JIT compilation where the platform has it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine {

/// A piece of the text: [first, first + second) in bytes.
using Span = std::pair<size_t, size_t>;

class PreTokenizer {
public:
  PreTokenizer();
  ~PreTokenizer();
  PreTokenizer(PreTokenizer &&) noexcept;
  PreTokenizer &operator=(PreTokenizer &&) noexcept;

  /// Adds an Isolated split by `pattern`: a PCRE2 regex, or a literal string
  /// when `literal`. `source` names the pattern in errors, e.g.
  /// "tokenizer.json: pre_tokenizer.pretokenizers[0]"; a pattern PCRE2
  /// rejects throws engine::Error with PCRE2's message and offset.
  void add_split(const std::string &pattern, bool literal,
                 const std::string &source);

  /// Appends the pieces of well-formed UTF-8 `text` to `pieces` as byte
  /// spans (no empty piece; with no split added, the whole text is one
  /// piece). Throws engine::Error if PCRE2 gives up (its match or JIT stack
  /// limits), which the bundled patterns never reach on valid input.
  void split(std::string_view text, std::vector<Span> &pieces) const;

private:
  struct Regex;
  std::vector<std::unique_ptr<Regex>> splits_;
};

} // namespace engine
