// engine/tokenizer/bpe.cpp - the BPE merge table and the merge loop.
#include "engine/tokenizer/bpe.h"

#include <algorithm>
#include <climits>
#include <queue>

namespace engine {
namespace {

/// Above this many symbols the priority queue beats rescanning the array.
constexpr size_t kScanLimit = 48;

} // namespace

BpeMerges::BpeMerges(const std::vector<Merge> &merges) {
  if (merges.empty())
    return;
  size_t capacity = 16;
  while (capacity < merges.size() * 2)
    capacity *= 2;
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const Merge &m = merges[rank];
    uint64_t key = pack(m.left, m.right);
    size_t i = hash(key) & mask_;
    while (slots_[i].rank >= 0 && slots_[i].key != key)
      i = (i + 1) & mask_;
    if (slots_[i].rank < 0)
      ++count_;
    slots_[i] = {key, int32_t(rank), m.merged};
  }
}

void BpeMerges::apply(std::vector<int32_t> &symbols) const {
  if (symbols.size() < 2)
    return;
  if (symbols.size() <= kScanLimit)
    apply_scan(symbols);
  else
    apply_queue(symbols);
}

void BpeMerges::apply_scan(std::vector<int32_t> &symbols) const {
  size_t n = symbols.size();
  if (n < 2)
    return;
  // rank[i], merged[i]: the merge of symbols[i] and symbols[i + 1].
  int32_t rank[kScanLimit], merged[kScanLimit];
  std::vector<int32_t> rank_heap, merged_heap;
  int32_t *r = rank, *m = merged;
  if (n > kScanLimit) {
    rank_heap.resize(n);
    merged_heap.resize(n);
    r = rank_heap.data();
    m = merged_heap.data();
  }
  auto lookup = [&](size_t i) {
    Result res = find(symbols[i], symbols[i + 1]);
    r[i] = res.rank < 0 ? INT32_MAX : res.rank;
    m[i] = res.merged;
  };
  for (size_t i = 0; i + 1 < n; ++i)
    lookup(i);
  while (n > 1) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < n; ++i)
      if (r[i] < r[best])
        best = i;
    if (r[best] == INT32_MAX)
      break;
    symbols[best] = m[best];
    // Drop symbol best + 1 and pair best (now stale) from the arrays.
    std::copy(symbols.begin() + best + 2, symbols.begin() + n,
              symbols.begin() + best + 1);
    std::copy(r + best + 1, r + n - 1, r + best);
    std::copy(m + best + 1, m + n - 1, m + best);
    --n;
    if (best > 0)
      lookup(best - 1);
    if (best + 1 < n)
      lookup(best);
  }
  symbols.resize(n);
}

void BpeMerges::apply_queue(std::vector<int32_t> &symbols) const {
  size_t n = symbols.size();
  if (n < 2)
    return;
  struct Symbol {
    int32_t id;
    int32_t prev, next; // -1 at the ends
    bool alive;
  };
  std::vector<Symbol> sym(n);
  for (size_t i = 0; i < n; ++i)
    sym[i] = {symbols[i], int32_t(i) - 1, i + 1 < n ? int32_t(i + 1) : -1,
              true};
  struct Entry {
    int32_t rank, pos, merged;
    // std::priority_queue pops the largest: invert for lowest rank, then
    // leftmost position.
    bool operator<(const Entry &o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::vector<Entry> storage;
  storage.reserve(n);
  std::priority_queue<Entry> queue(std::less<Entry>(), std::move(storage));
  auto push = [&](int32_t pos) {
    int32_t next = sym[pos].next;
    if (next < 0)
      return;
    Result res = find(sym[pos].id, sym[next].id);
    if (res.rank >= 0)
      queue.push({res.rank, pos, res.merged});
  };
  for (size_t i = 0; i + 1 < n; ++i)
    push(int32_t(i));
  while (!queue.empty()) {
    Entry top = queue.top();
    queue.pop();
    Symbol &left = sym[top.pos];
    if (!left.alive || left.next < 0)
      continue;
    Symbol &right = sym[left.next];
    // An entry is stale once either symbol changed; the pair's merge result
    // identifies it because merged strings only grow.
    Result res = find(left.id, right.id);
    if (res.rank != top.rank || res.merged != top.merged)
      continue;
    left.id = top.merged;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0)
      sym[right.next].prev = top.pos;
    if (left.prev >= 0)
      push(left.prev);
    push(top.pos);
  }
  size_t out = 0;
  for (int32_t i = 0; i >= 0; i = sym[i].next)
    symbols[out++] = sym[i].id;
  symbols.resize(out);
}

} // namespace engine
