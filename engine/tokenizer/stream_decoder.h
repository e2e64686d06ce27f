// engine/tokenizer/stream_decoder.h - token ids to text one id at a time,
// for printing a completion as it is generated.
//
// A byte-level token can end in the middle of a UTF-8 character (CJK and
// emoji are often split over two or three tokens), so the decoder holds
// back an incomplete character until the token that completes it arrives.
// What push() returns, concatenated with finish(), is exactly
// Tokenizer::decode() of all the ids.
#pragma once

#include "engine/tokenizer/tokenizer.h"

#include <cstdint>
#include <string>

namespace engine {

class StreamDecoder {
public:
  /// Decodes ids of `tokenizer`, which must outlive this decoder.
  explicit StreamDecoder(const Tokenizer &tokenizer,
                         bool skip_special_tokens = false);

  /// The text that `id` completes (possibly empty). Throws engine::Error
  /// for an id outside the vocabulary, leaving the decoder as it was.
  std::string push(int32_t id);

  /// The held-back bytes of an unfinished character, as U+FFFD (what
  /// decode() gives for them), and a fresh start for the next stream.
  std::string finish();

private:
  const Tokenizer *tokenizer_;
  bool skip_special_;
  std::string pending_; ///< at most 3 bytes: a valid prefix of a character
};

} // namespace engine
