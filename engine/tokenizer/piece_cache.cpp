// engine/tokenizer/piece_cache.cpp - per-thread cache of pre-token ids.
#include "engine/tokenizer/piece_cache.h"

#include <atomic>
#include <cstring>

namespace engine {

PieceCache &PieceCache::local() {
  thread_local PieceCache cache;
  return cache;
}

uint64_t PieceCache::new_owner() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool PieceCache::find(uint64_t owner, std::string_view piece, uint64_t hash,
                      std::vector<int32_t> &out) const {
  const Slot &s = slots_[hash & (kSlots - 1)];
  if (s.owner != owner || s.length != piece.size() ||
      std::memcmp(s.bytes, piece.data(), piece.size()) != 0)
    return false;
  out.insert(out.end(), s.ids, s.ids + s.count);
  return true;
}

void PieceCache::store(uint64_t owner, std::string_view piece, uint64_t hash,
                       const int32_t *ids, size_t count) {
  if (piece.size() > kMaxBytes || count > kMaxIds)
    return;
  Slot &s = slots_[hash & (kSlots - 1)];
  s.owner = owner;
  s.length = uint8_t(piece.size());
  s.count = uint8_t(count);
  std::memcpy(s.bytes, piece.data(), piece.size());
  std::memcpy(s.ids, ids, count * sizeof(int32_t));
}

} // namespace engine
