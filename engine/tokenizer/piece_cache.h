// engine/tokenizer/piece_cache.h - remembers the ids of recent short
// pre-tokens, per thread.
//
// Natural text repeats its words, and BPE on a word costs a few hash
// lookups per merge into a merge table far larger than the CPU caches;
// Hugging Face keeps such a cache for the same reason. This one is
// direct-mapped (a new word evicts whatever shared its slot, so its size
// is fixed: 4096 slots of 64 bytes) and per thread, so encode() stays
// lock-free; each slot records which tokenizer filled it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace engine {

class PieceCache {
public:
  static constexpr size_t kMaxBytes = 22; ///< longer pieces are not kept
  static constexpr size_t kMaxIds = 8;

  /// The calling thread's cache.
  static PieceCache &local();

  /// Appends the ids stored for `piece` by tokenizer `owner` to `out`;
  /// false when they are not there.
  bool find(uint64_t owner, std::string_view piece, uint64_t hash,
            std::vector<int32_t> &out) const;

  /// Stores ids[0..count) for `piece` when both are small enough.
  void store(uint64_t owner, std::string_view piece, uint64_t hash,
             const int32_t *ids, size_t count);

  /// A number no other tokenizer of this process has.
  static uint64_t new_owner();

private:
  struct Slot {
    uint64_t owner = 0; // 0: empty
    uint8_t length = 0, count = 0;
    char bytes[kMaxBytes];
    int32_t ids[kMaxIds];
  };
  static_assert(sizeof(Slot) == 64, "one cache line per slot");
  static constexpr size_t kSlots = 4096;
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
};

} // namespace engine
