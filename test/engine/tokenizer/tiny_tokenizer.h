// test/engine/tokenizer/tiny_tokenizer.h - a small byte-level BPE
// tokenizer.json in Qwen3's shape (its regex, NFC, added tokens) with a
// 256-byte vocabulary and a handful of merges: loads in microseconds, for
// the error tests and the fuzzers.
#pragma once

#include "engine/tokenizer/byte_level.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace engine::test {

inline const char *kQwen3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/// The tokenizer.json as a JSON value, to be edited by tests. Ids: bytes
/// 0..255 in byte order, then the merged tokens, then <|im_start|>,
/// <|im_end|> (special) and <think> (not special).
inline nlohmann::json tiny_tokenizer() {
  using nlohmann::json;
  json vocab = json::object();
  for (int b = 0; b < 256; ++b)
    vocab[std::string(byte_level_char(uint8_t(b)))] = b;
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"\xc4\xa0", "t"},
      {"h", "e"},
      {"\xc4\xa0t", "he"},
      {"i", "n"},
      {"a", "a"},
      {"aa", "aa"},
      {"\xc4\xa0", "\xc4\xa0"},
      {"\xc4\xa0\xc4\xa0", "\xc4\xa0\xc4\xa0"},
      {"1", "2"},
      {"\xc3\xa4", "\xc2\xb8"}, // the bytes of U+4E2D
  };
  json merge_list = json::array();
  int next = 256;
  for (const auto &[a, b] : merges) {
    if (!vocab.contains(a + b))
      vocab[a + b] = next++;
    merge_list.push_back(json::array({a, b}));
  }
  auto added = [&](const char *content, bool special) {
    return json{{"id", next++},         {"content", content},
                {"single_word", false}, {"lstrip", false},
                {"rstrip", false},      {"normalized", false},
                {"special", special}};
  };
  json added_tokens = json::array();
  added_tokens.push_back(added("<|im_start|>", true));
  added_tokens.push_back(added("<|im_end|>", true));
  added_tokens.push_back(added("<think>", false));
  json byte_level = {{"type", "ByteLevel"},
                     {"add_prefix_space", false},
                     {"trim_offsets", false},
                     {"use_regex", false}};
  return json{{"version", "1.0"},
              {"truncation", nullptr},
              {"padding", nullptr},
              {"added_tokens", added_tokens},
              {"normalizer", {{"type", "NFC"}}},
              {"pre_tokenizer",
               {{"type", "Sequence"},
                {"pretokenizers",
                 json::array({json{{"type", "Split"},
                                   {"pattern", {{"Regex", kQwen3Pattern}}},
                                   {"behavior", "Isolated"},
                                   {"invert", false}},
                              byte_level})}}},
              {"post_processor", byte_level},
              {"decoder", byte_level},
              {"model",
               {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"continuing_subword_prefix", ""},
                {"end_of_word_suffix", ""},
                {"fuse_unk", false},
                {"byte_fallback", false},
                {"ignore_merges", false},
                {"vocab", vocab},
                {"merges", merge_list}}}};
}

} // namespace engine::test
