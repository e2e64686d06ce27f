// engine/tokenizer/token_index.cpp - token spelling -> id lookup.
#include "engine/tokenizer/token_index.h"

namespace engine {

TokenIndex::TokenIndex(size_t expected, Spelling spelling)
    : spelling_(std::move(spelling)) {
  size_t capacity = 16;
  while (capacity < expected * 2) // at most half full: short probe runs
    capacity *= 2;
  slots_.assign(capacity, 0);
  mask_ = capacity - 1;
}

bool TokenIndex::insert(int32_t id) {
  if ((count_ + 1) * 2 > slots_.size()) {
    std::vector<int32_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, 0);
    mask_ = slots_.size() - 1;
    for (int32_t slot : old)
      if (slot != 0) {
        size_t i = hash(spelling_(slot - 1)) & mask_;
        while (slots_[i] != 0)
          i = (i + 1) & mask_;
        slots_[i] = slot;
      }
  }
  std::string_view token = spelling_(id);
  size_t i = hash(token) & mask_;
  for (; slots_[i] != 0; i = (i + 1) & mask_)
    if (spelling_(slots_[i] - 1) == token)
      return false;
  slots_[i] = id + 1;
  ++count_;
  return true;
}

} // namespace engine
