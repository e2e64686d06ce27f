// engine/tokenizer/added_tokens.cpp - finds added tokens in text.
#include "engine/tokenizer/added_tokens.h"

#include <algorithm>

namespace engine {

void AddedTokenMatcher::add(std::string content, int32_t id, bool special) {
  if (content.empty())
    return; // matches nowhere; Hugging Face ignores it too
  auto first = uint8_t(content[0]);
  tokens_.push_back({std::move(content), id, special});
  auto &bucket = by_first_byte_[first];
  size_t length = tokens_.back().content.size();
  // Longest first; among equal lengths the first added wins.
  auto at = std::find_if(bucket.begin(), bucket.end(), [&](uint32_t i) {
    return tokens_[i].content.size() < length;
  });
  bucket.insert(at, uint32_t(tokens_.size() - 1));
}

AddedTokenMatcher::Match AddedTokenMatcher::find(std::string_view text,
                                                 size_t from,
                                                 bool with_special) const {
  if (tokens_.empty())
    return {};
  for (size_t pos = from; pos < text.size(); ++pos) {
    const auto &bucket = by_first_byte_[uint8_t(text[pos])];
    for (uint32_t index : bucket) {
      const Token &t = tokens_[index];
      if (t.special && !with_special)
        continue;
      if (text.compare(pos, t.content.size(), t.content) == 0)
        return {pos, t.content.size(), t.id};
    }
  }
  return {};
}

} // namespace engine
