// engine/tokenizer/tokenizer.h - text to token ids and back, as Hugging
// Face's `tokenizers` does for a byte-level BPE tokenizer.json (Qwen2,
// Qwen3).
//
// encode: added tokens are cut out of the raw text first (leftmost, longest;
// special ones only when parse_special), the rest is NFC-normalized, split
// by the pre-tokenizer regex, spelled in GPT-2's byte alphabet and merged by
// BPE rank. decode: each id's bytes are concatenated and decoded as UTF-8
// with U+FFFD for ill-formed bytes. A Tokenizer is immutable after load()
// and cheap to copy (the tables are shared); encode and decode may run on
// several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

class Tokenizer {
public:
  /// Loads `folder_or_file`: a model folder (its tokenizer.json) or the
  /// tokenizer.json itself. Throws engine::Error naming the file when it
  /// cannot be read, is not JSON, lacks model/vocab, or uses a component
  /// this implementation does not support (see tokenizer_json.h).
  static Tokenizer load(const std::string &folder_or_file);

  /// The same from the text of a tokenizer.json; `name` starts errors.
  static Tokenizer from_json(std::string_view json,
                             const std::string &name = "tokenizer.json");

  /// Token ids of `text`, which must be well-formed UTF-8 (else
  /// engine::Error "input is not valid UTF-8 at byte 17"). With
  /// parse_special false, special added tokens (<|im_start|>,
  /// <|endoftext|>) are encoded as the plain text they spell, as Hugging
  /// Face's split_special_tokens does; non-special added tokens (<think>)
  /// still match. Adds no BOS/EOS.
  std::vector<int32_t> encode(std::string_view text,
                              bool parse_special = true) const;

  /// The text of `ids`; ill-formed UTF-8 (a character cut between tokens)
  /// becomes U+FFFD. Throws engine::Error naming the first id that is not
  /// in the vocabulary.
  std::string decode(const std::vector<int32_t> &ids,
                     bool skip_special_tokens = false) const;

  /// The token as the vocabulary spells it ("Ġhello", "<|im_end|>").
  /// Throws engine::Error for an id outside the vocabulary.
  std::string token_text(int32_t id) const;

  /// The bytes token `id` stands for (" hello"; possibly part of a UTF-8
  /// character). Throws engine::Error for an id outside the vocabulary.
  std::string_view token_bytes(int32_t id) const;

  /// The id of a token spelled as in the vocabulary, or nullopt.
  std::optional<int32_t> token_id(std::string_view token) const;

  /// One more than the largest id, added tokens included (151669 for
  /// Qwen3; the model's embedding table may be larger).
  int32_t vocab_size() const;

  /// True for added tokens marked special (<|im_end|>); false for others
  /// and for ids outside the vocabulary.
  bool is_special(int32_t id) const;

  /// True when `id` names a token (vocabulary or added).
  bool contains(int32_t id) const;

private:
  struct Impl;
  explicit Tokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

} // namespace engine
