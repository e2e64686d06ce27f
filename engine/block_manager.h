// engine/block_manager.h - the paged KV cache's bookkeeping: which physical
// block holds which tokens of which sequence, with prefix caching. A full
// block is identified by a chained hash (its tokens plus the hash of the
// block before it), so two prompts sharing a prefix share its blocks and only
// the rest is computed. Freed blocks keep their contents and hash until they
// are handed out again (lazy eviction, least recently freed first), so a
// later request can still hit them. No KV data lives here: this class only
// decides block ids; the model runner owns the memory.
#pragma once

#include "engine/sequence.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace engine {

/// One physical KV block.
struct Block {
  int32_t id = 0;
  /// Sequences whose block table holds this block.
  int ref_count = 0;
  /// Set only for full blocks: the chained hash of their tokens.
  bool has_hash = false;
  uint64_t hash = 0;
  /// The tokens a hashed block holds, compared on every hit so that a hash
  /// collision can never hand one prompt another prompt's KV.
  std::vector<int32_t> token_ids;
};

class BlockManager {
public:
  /// Chained block hash: `prefix` is the previous block's hash (ignored when
  /// `has_prefix` is false, i.e. for block 0), `tokens` the block's `n` ids.
  using HashFunction = uint64_t (*)(bool has_prefix, uint64_t prefix,
                                    const int32_t *tokens, int n);

  /// Needs num_blocks >= 1 and block_size >= 1 (throws engine::Error naming
  /// the bad value otherwise).
  BlockManager(int num_blocks, int block_size);

  /// XXH64 (seed 0) over the prefix hash as 8 little-endian bytes (absent
  /// for block 0) followed by the token ids as 4-byte little-endian ints.
  static uint64_t compute_hash(bool has_prefix, uint64_t prefix,
                               const int32_t *tokens, int n);

  /// How a prefill of `seq` would use the cache right now.
  struct PrefixMatch {
    /// Leading blocks found in the cache. Never the block holding the last
    /// token, which is always computed so that the step produces logits.
    int num_hit_blocks = 0;
    /// Hit blocks currently on the free list (taking them uses free blocks).
    int num_free_hit_blocks = 0;
    /// Free blocks allocate() would consume: free hits plus misses.
    int num_blocks_needed = 0;
  };
  /// Looks up `seq`'s full blocks (chained hashes, tokens compared) without
  /// changing anything.
  PrefixMatch match_prefix(const Sequence &seq) const;

  /// True when allocate(seq) would find enough free blocks, counting hits.
  bool can_allocate(const Sequence &seq) const;
  /// Prefill: gives `seq` (whose block_table must be empty) a block for
  /// every block of its tokens. Cache hits are shared (or taken back from the
  /// free list); misses get fresh blocks; every full block gets its hash
  /// registered. Sets seq.num_cached_tokens to the tokens in hit blocks.
  /// Throws std::logic_error when called without can_allocate().
  void allocate(Sequence &seq);
  /// Releases `seq`'s blocks (a block with no user left goes on the free
  /// list, keeping its hash) and clears block_table and num_cached_tokens.
  void deallocate(Sequence &seq);

  /// Decode: true when may_append(seq) has the block it may need.
  bool can_append(const Sequence &seq) const;
  /// Decode: `seq` has num_tokens() tokens and the last one's KV is written
  /// in this step. Appends a fresh block when that token starts one, and
  /// registers the hash of the last block when that token fills it. Throws
  /// std::logic_error when the block table does not match the tokens.
  void may_append(Sequence &seq);

  int num_free_blocks() const { return num_free_; }
  int num_blocks() const { return static_cast<int>(blocks_.size()); }
  int block_size() const { return block_size_; }
  const Block &block(int32_t id) const { return blocks_.at(id); }
  /// Block registered for `hash`, or -1.
  int32_t lookup(uint64_t hash) const;

  /// Consistency check for tests: with `seqs` all sequences that hold
  /// blocks, each block's ref_count equals the number of their block tables
  /// holding it, the free list is exactly the blocks with ref_count 0 (each
  /// once), every hash-map entry points at a block carrying that hash, and
  /// every hashed block in a table holds that sequence's tokens and the
  /// chained hash of them. Returns "" or a description of the first problem.
  std::string check_invariants(const std::vector<const Sequence *> &seqs) const;

  /// Test-only hook: replaces the block hash (e.g. by one that collides) for
  /// everything this manager does from now on.
  void set_hash_function_for_testing(HashFunction fn) { hash_fn_ = fn; }

private:
  int32_t take_free(int32_t id);
  int32_t take_fresh();
  void release_to_free(int32_t id);
  void register_hash(int32_t id, uint64_t hash, const int32_t *tokens);
  bool holds_tokens(const Block &block, const int32_t *tokens) const;

  int block_size_;
  std::vector<Block> blocks_;
  std::unordered_map<uint64_t, int32_t> hash_to_block_;
  // The free list: an intrusive doubly linked list over block ids in LRU
  // order, so a hit can take a block out of the middle in O(1).
  std::vector<int32_t> prev_, next_;
  int32_t head_ = -1, tail_ = -1;
  int num_free_ = 0;
  HashFunction hash_fn_;
};

} // namespace engine
