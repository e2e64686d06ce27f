// engine/tokenizer/bpe.h - the BPE merge table and the merge loop.
//
// A word starts as one symbol per byte (its byte-level token id) and the
// adjacent pair with the lowest merge rank is merged, the leftmost first
// among equal ranks, until no adjacent pair has a merge: the order Hugging
// Face's BPE model applies. Short words (almost all pre-tokens) use a scan
// over a small array; long ones (a run of thousands of letters or spaces)
// use a priority queue over adjacent pairs so the work stays O(n log n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace engine {

class BpeMerges {
public:
  struct Merge {
    int32_t left, right, merged;
  };

  /// Builds the table from merges in rank order (rank = index). A pair
  /// listed twice keeps its last rank and result, as Hugging Face does.
  explicit BpeMerges(const std::vector<Merge> &merges = {});

  /// Rank of the pair (left, right) and the id it merges into; rank -1 when
  /// the pair has no merge.
  struct Result {
    int32_t rank = -1, merged = -1;
  };
  Result find(int32_t left, int32_t right) const {
    if (mask_ == 0)
      return {};
    uint64_t key = pack(left, right);
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      const Slot &s = slots_[i];
      if (s.key == key && s.rank >= 0)
        return {s.rank, s.merged};
      if (s.rank < 0)
        return {};
    }
  }

  /// Merges `symbols` (token ids) in place; picks the method by length.
  void apply(std::vector<int32_t> &symbols) const;
  /// The two methods, exposed so tests can check they agree.
  void apply_scan(std::vector<int32_t> &symbols) const;
  void apply_queue(std::vector<int32_t> &symbols) const;

  size_t size() const { return count_; }

private:
  struct Slot {
    uint64_t key = 0;
    int32_t rank = -1, merged = -1;
  };
  static uint64_t pack(int32_t left, int32_t right) {
    return (uint64_t(uint32_t(left)) << 32) | uint32_t(right);
  }
  static size_t hash(uint64_t key) {
    return size_t((key * 0x9e3779b97f4a7c15ull) >> 29);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, count_ = 0;
};

} // namespace engine
