// engine/tokenizer/stream_decoder.cpp - token ids to text one at a time.
#include "engine/tokenizer/stream_decoder.h"

#include "engine/tokenizer/utf8.h"

namespace engine {

StreamDecoder::StreamDecoder(const Tokenizer &tokenizer,
                             bool skip_special_tokens)
    : tokenizer_(&tokenizer), skip_special_(skip_special_tokens) {}

std::string StreamDecoder::push(int32_t id) {
  std::string_view bytes = tokenizer_->token_bytes(id); // throws first
  if (skip_special_ && tokenizer_->is_special(id))
    return {};
  std::string text;
  if (pending_.empty()) {
    size_t used = append_utf8_lossy(text, bytes, false);
    pending_.assign(bytes.substr(used));
    return text;
  }
  // Lossy decoding looks at most 4 bytes ahead, so decoding the held bytes
  // with the new ones gives what decoding everything at once would.
  pending_.append(bytes);
  size_t used = append_utf8_lossy(text, pending_, false);
  pending_.erase(0, used);
  return text;
}

std::string StreamDecoder::finish() {
  std::string text;
  append_utf8_lossy(text, pending_, true);
  pending_.clear();
  return text;
}

} // namespace engine
