// engine/tokenizer/tokenizer_json.h - reads a Hugging Face tokenizer.json
// into the facts a byte-level BPE tokenizer needs, rejecting what it cannot
// honour.
//
// Supported (what Qwen2/Qwen3 and GPT-2-style files use): normalizer NFC or
// null; pre_tokenizer ByteLevel, or a Sequence of Split (Regex or String
// pattern, behavior Isolated, invert false) ending in ByteLevel; model BPE
// (vocab, merges as "a b" strings or ["a", "b"] pairs, optional unk_token,
// ignore_merges); post_processor ByteLevel or null; decoder ByteLevel;
// added_tokens without lstrip, rstrip or single_word. Anything else is an
// engine::Error naming the file and the component, so a model whose
// tokenizer would be silently wrong never loads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine {

struct TokenizerSpec {
  bool nfc = false;
  struct Split {
    std::string pattern;
    bool literal;       ///< a String pattern, matched as written
    std::string source; ///< "tokenizer.json: pre_tokenizer..." for errors
  };
  std::vector<Split> splits; ///< applied in order; empty: no split
  std::vector<std::pair<std::string, int32_t>> vocab;
  std::vector<std::pair<std::string, std::string>> merges; ///< rank order
  std::optional<std::string> unk_token;
  bool fuse_unk = false;
  bool ignore_merges = false;
  struct AddedToken {
    std::string content;
    int32_t id;
    bool special;
    bool normalized; ///< matched after normalization, not on the raw text
  };
  std::vector<AddedToken> added_tokens;
};

/// GPT-2's pre-tokenizer regex, which ByteLevel applies when use_regex is
/// true.
extern const char *const kGpt2Pattern;

/// Parses the text of a tokenizer.json; `name` (the file's path) starts
/// every error message. Throws engine::Error for text that is not JSON, a
/// missing or ill-typed field, or an unsupported component
/// ("tokenizer.json: unsupported pre_tokenizer type 'Metaspace'").
TokenizerSpec parse_tokenizer_json(std::string_view text,
                                   const std::string &name);

} // namespace engine
