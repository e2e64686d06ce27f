// engine/block_manager.cpp - block allocation with chained-hash prefix
// caching and lazy eviction (see block_manager.h).
#include "engine/block_manager.h"

#include "engine/error.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace engine {

namespace {

// The hash is defined over little-endian bytes so that it does not depend on
// the host; on little-endian hosts the tokens are hashed in place.
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

void put_le64(unsigned char *out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<unsigned char>(v >> (8 * i));
}

} // namespace

BlockManager::BlockManager(int num_blocks, int block_size)
    : block_size_(block_size), hash_fn_(&BlockManager::compute_hash) {
  if (num_blocks < 1)
    throw Error("block manager: num_blocks must be positive, got " +
                std::to_string(num_blocks));
  if (block_size < 1)
    throw Error("block manager: block_size must be positive, got " +
                std::to_string(block_size));
  blocks_.resize(num_blocks);
  prev_.resize(num_blocks);
  next_.resize(num_blocks);
  for (int32_t i = 0; i < num_blocks; ++i) {
    blocks_[i].id = i;
    prev_[i] = i - 1;
    next_[i] = i + 1 < num_blocks ? i + 1 : -1;
  }
  head_ = 0;
  tail_ = num_blocks - 1;
  num_free_ = num_blocks;
}

uint64_t BlockManager::compute_hash(bool has_prefix, uint64_t prefix,
                                    const int32_t *tokens, int n) {
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  if (has_prefix) {
    unsigned char bytes[8];
    put_le64(bytes, prefix);
    XXH64_update(&state, bytes, sizeof bytes);
  }
  if (kLittleEndian) {
    XXH64_update(&state, tokens, sizeof(int32_t) * static_cast<size_t>(n));
  } else {
    for (int i = 0; i < n; ++i) {
      unsigned char bytes[4];
      for (int b = 0; b < 4; ++b)
        bytes[b] = static_cast<unsigned char>(
            static_cast<uint32_t>(tokens[i]) >> (8 * b));
      XXH64_update(&state, bytes, sizeof bytes);
    }
  }
  return XXH64_digest(&state);
}

int32_t BlockManager::lookup(uint64_t hash) const {
  auto it = hash_to_block_.find(hash);
  return it == hash_to_block_.end() ? -1 : it->second;
}

bool BlockManager::holds_tokens(const Block &block,
                                const int32_t *tokens) const {
  return block.has_hash &&
         static_cast<int>(block.token_ids.size()) == block_size_ &&
         std::memcmp(block.token_ids.data(), tokens,
                     sizeof(int32_t) * block_size_) == 0;
}

BlockManager::PrefixMatch
BlockManager::match_prefix(const Sequence &seq) const {
  PrefixMatch match;
  const int num_blocks = seq.num_blocks();
  bool has_prefix = false;
  uint64_t prefix = 0;
  // Blocks before the last are full; the last is always computed.
  for (int i = 0; i + 1 < num_blocks; ++i) {
    const int32_t *tokens = seq.block_tokens(i);
    const uint64_t h = hash_fn_(has_prefix, prefix, tokens, block_size_);
    const int32_t id = lookup(h);
    if (id < 0 || !holds_tokens(blocks_[id], tokens))
      break;
    ++match.num_hit_blocks;
    if (blocks_[id].ref_count == 0)
      ++match.num_free_hit_blocks;
    has_prefix = true;
    prefix = h;
  }
  match.num_blocks_needed =
      match.num_free_hit_blocks + (num_blocks - match.num_hit_blocks);
  return match;
}

bool BlockManager::can_allocate(const Sequence &seq) const {
  return match_prefix(seq).num_blocks_needed <= num_free_;
}

int32_t BlockManager::take_free(int32_t id) {
  const int32_t p = prev_[id], n = next_[id];
  (p >= 0 ? next_[p] : head_) = n;
  (n >= 0 ? prev_[n] : tail_) = p;
  prev_[id] = next_[id] = -1;
  --num_free_;
  return id;
}

int32_t BlockManager::take_fresh() {
  if (head_ < 0)
    throw std::logic_error("block manager: no free block");
  const int32_t id = take_free(head_);
  Block &block = blocks_[id];
  // Evict what the block cached: its map entry, unless a newer block with
  // the same hash has taken that entry over.
  if (block.has_hash) {
    auto it = hash_to_block_.find(block.hash);
    if (it != hash_to_block_.end() && it->second == id)
      hash_to_block_.erase(it);
  }
  block.has_hash = false;
  block.hash = 0;
  block.token_ids.clear();
  block.ref_count = 1;
  return id;
}

void BlockManager::release_to_free(int32_t id) {
  // Cached blocks join the back (evicted last, LRU); blocks with no hash can
  // never be hit again, so they are handed out first.
  if (blocks_[id].has_hash) {
    prev_[id] = tail_;
    next_[id] = -1;
    (tail_ >= 0 ? next_[tail_] : head_) = id;
    tail_ = id;
  } else {
    prev_[id] = -1;
    next_[id] = head_;
    (head_ >= 0 ? prev_[head_] : tail_) = id;
    head_ = id;
  }
  ++num_free_;
}

void BlockManager::register_hash(int32_t id, uint64_t hash,
                                 const int32_t *tokens) {
  Block &block = blocks_[id];
  block.has_hash = true;
  block.hash = hash;
  block.token_ids.assign(tokens, tokens + block_size_);
  // The newest copy wins: it is the one evicted last.
  hash_to_block_[hash] = id;
}

void BlockManager::allocate(Sequence &seq) {
  if (!seq.block_table.empty())
    throw std::logic_error("block manager: allocate() on a sequence that "
                           "already holds blocks");
  const PrefixMatch match = match_prefix(seq);
  if (match.num_blocks_needed > num_free_)
    throw std::logic_error("block manager: allocate() without enough blocks");
  const int num_blocks = seq.num_blocks();
  seq.block_table.reserve(num_blocks);
  bool has_prefix = false;
  uint64_t prefix = 0;
  for (int i = 0; i < num_blocks; ++i) {
    const int32_t *tokens = seq.block_tokens(i);
    const bool full = seq.block_num_tokens(i) == block_size_;
    const uint64_t h =
        full ? hash_fn_(has_prefix, prefix, tokens, block_size_) : 0;
    int32_t id;
    if (i < match.num_hit_blocks) {
      id = lookup(h);
      if (blocks_[id].ref_count == 0) {
        take_free(id);
        blocks_[id].ref_count = 1;
      } else {
        ++blocks_[id].ref_count;
      }
    } else {
      id = take_fresh();
      if (full)
        register_hash(id, h, tokens);
    }
    seq.block_table.push_back(id);
    has_prefix = true;
    prefix = h;
  }
  seq.num_cached_tokens = match.num_hit_blocks * block_size_;
}

void BlockManager::deallocate(Sequence &seq) {
  // Last block first: the free list is LRU, so the prompt's leading blocks,
  // the likeliest to be shared again, are freed last and evicted last.
  for (auto it = seq.block_table.rbegin(); it != seq.block_table.rend(); ++it) {
    Block &block = blocks_.at(*it);
    if (block.ref_count <= 0)
      throw std::logic_error("block manager: block freed twice");
    if (--block.ref_count == 0)
      release_to_free(*it);
  }
  seq.block_table.clear();
  seq.num_cached_tokens = 0;
}

bool BlockManager::can_append(const Sequence &seq) const {
  const bool needs_block =
      static_cast<int>(seq.block_table.size()) < seq.num_blocks();
  return num_free_ >= (needs_block ? 1 : 0);
}

void BlockManager::may_append(Sequence &seq) {
  const int have = static_cast<int>(seq.block_table.size());
  const int want = seq.num_blocks();
  if (have != want && have + 1 != want)
    throw std::logic_error("block manager: may_append() on sequence " +
                           std::to_string(seq.seq_id) + " with " +
                           std::to_string(have) + " blocks for " +
                           std::to_string(seq.num_tokens()) + " tokens");
  if (have + 1 == want)
    seq.block_table.push_back(take_fresh());
  // The new token completes its block: from now on the block can be shared.
  if (seq.num_tokens() % block_size_ == 0) {
    const int i = want - 1;
    const int32_t id = seq.block_table[i];
    bool has_prefix = i > 0;
    uint64_t prefix = has_prefix ? blocks_[seq.block_table[i - 1]].hash : 0;
    register_hash(
        id, hash_fn_(has_prefix, prefix, seq.block_tokens(i), block_size_),
        seq.block_tokens(i));
  }
}

std::string BlockManager::check_invariants(
    const std::vector<const Sequence *> &seqs) const {
  const int n = num_blocks();
  std::vector<int> refs(n, 0);
  for (const Sequence *seq : seqs) {
    bool has_prefix = false;
    uint64_t prefix = 0;
    for (size_t i = 0; i < seq->block_table.size(); ++i) {
      const int32_t id = seq->block_table[i];
      if (id < 0 || id >= n)
        return "sequence " + std::to_string(seq->seq_id) + " holds block " +
               std::to_string(id) + " out of range";
      ++refs[id];
      const Block &block = blocks_[id];
      if (!block.has_hash) {
        if (i + 1 != seq->block_table.size())
          return "sequence " + std::to_string(seq->seq_id) +
                 ": unhashed block " + std::to_string(id) + " is not last";
        continue;
      }
      const int32_t *tokens = seq->block_tokens(static_cast<int>(i));
      if (static_cast<int>(i) >= seq->num_blocks() ||
          seq->block_num_tokens(static_cast<int>(i)) != block_size_ ||
          !holds_tokens(block, tokens))
        return "sequence " + std::to_string(seq->seq_id) + ": block " +
               std::to_string(id) + " does not hold its tokens";
      if (block.hash != hash_fn_(has_prefix, prefix, tokens, block_size_))
        return "block " + std::to_string(id) + " has a wrong chained hash";
      has_prefix = true;
      prefix = block.hash;
    }
  }
  for (int i = 0; i < n; ++i)
    if (blocks_[i].ref_count != refs[i])
      return "block " + std::to_string(i) + " has ref_count " +
             std::to_string(blocks_[i].ref_count) + " but " +
             std::to_string(refs[i]) + " holders";
  std::vector<char> on_list(n, 0);
  int count = 0;
  int32_t prev = -1;
  for (int32_t id = head_; id >= 0; id = next_[id]) {
    if (id >= n || on_list[id] || count > n)
      return "free list is corrupt at block " + std::to_string(id);
    if (prev_[id] != prev)
      return "free list back link is wrong at block " + std::to_string(id);
    on_list[id] = 1;
    ++count;
    prev = id;
  }
  if (prev != tail_)
    return "free list tail is wrong";
  if (count != num_free_)
    return "free list has " + std::to_string(count) + " blocks, num_free is " +
           std::to_string(num_free_);
  for (int i = 0; i < n; ++i)
    if ((blocks_[i].ref_count == 0) != (on_list[i] != 0))
      return "block " + std::to_string(i) + " with ref_count " +
             std::to_string(blocks_[i].ref_count) +
             (on_list[i] ? " is" : " is not") + " on the free list";
  for (const auto &[hash, id] : hash_to_block_)
    if (id < 0 || id >= n || !blocks_[id].has_hash || blocks_[id].hash != hash)
      return "hash map entry points at block " + std::to_string(id) +
             " which does not carry that hash";
  return "";
}

} // namespace engine
