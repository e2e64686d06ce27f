// BlockManager: prefix caching by chained block hashes (exact hit counts,
// the last-token rule, the collision guard), lazy eviction, shared reference
// counts and decode-time block appends.
#include "engine/block_manager.h"
#include "engine/error.h"

#include <gtest/gtest.h>

#include <xxhash.h>

#include <numeric>

using namespace engine;

namespace {

constexpr int kBlock = 4;

std::vector<int32_t> iota_tokens(int n, int32_t first = 1) {
  std::vector<int32_t> t(n);
  std::iota(t.begin(), t.end(), first);
  return t;
}

std::vector<int32_t> concat(std::vector<int32_t> a,
                            const std::vector<int32_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Sequence make_seq(int64_t id, std::vector<int32_t> prompt) {
  return Sequence(id, std::move(prompt), SamplingParams{}, kBlock);
}

std::string invariants(const BlockManager &bm,
                       std::vector<const Sequence *> holders) {
  return bm.check_invariants(holders);
}

uint64_t colliding_hash(bool, uint64_t, const int32_t *, int) { return 42; }

} // namespace

TEST(BlockManager, HashIsXxh64OfPrefixHashThenTokensLittleEndian) {
  const int32_t tokens[kBlock] = {1, -2, 300000, 4};
  unsigned char bytes[8 + sizeof tokens];
  const uint64_t prefix = 0x0102030405060708ULL;
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>(prefix >> (8 * i));
  for (int t = 0; t < kBlock; ++t)
    for (int b = 0; b < 4; ++b)
      bytes[8 + 4 * t + b] = static_cast<unsigned char>(
          static_cast<uint32_t>(tokens[t]) >> (8 * b));
  EXPECT_EQ(BlockManager::compute_hash(true, prefix, tokens, kBlock),
            XXH64(bytes, sizeof bytes, 0));
  EXPECT_EQ(BlockManager::compute_hash(false, 0, tokens, kBlock),
            XXH64(bytes + 8, sizeof tokens, 0));
}

TEST(BlockManager, RejectsNonPositiveSizes) {
  EXPECT_THROW(BlockManager(0, 4), Error);
  EXPECT_THROW(BlockManager(4, 0), Error);
}

TEST(BlockManager, SharedPrefixHitsExactlyItsFullBlocks) {
  BlockManager bm(16, kBlock);
  const auto prefix = iota_tokens(8); // two full blocks
  Sequence a = make_seq(0, concat(prefix, {90, 91}));
  Sequence b = make_seq(1, concat(prefix, {80, 81, 82}));
  Sequence c = make_seq(2, concat(iota_tokens(6), {70, 71, 72, 73}));
  Sequence d = make_seq(3, concat({99}, prefix)); // shifted: no block matches
  for (Sequence *s : {&a, &b, &c, &d})
    ASSERT_TRUE(bm.can_allocate(*s));
  bm.allocate(a);
  EXPECT_EQ(a.num_cached_tokens, 0);
  bm.allocate(b);
  EXPECT_EQ(b.num_cached_tokens, 8);
  EXPECT_EQ(b.block_table[0], a.block_table[0]);
  EXPECT_EQ(b.block_table[1], a.block_table[1]);
  EXPECT_NE(b.block_table[2], a.block_table[2]);
  bm.allocate(c);
  EXPECT_EQ(c.num_cached_tokens, 4);
  EXPECT_EQ(c.block_table[0], a.block_table[0]);
  EXPECT_NE(c.block_table[1], a.block_table[1]);
  bm.allocate(d);
  EXPECT_EQ(d.num_cached_tokens, 0);
  EXPECT_EQ(bm.block(a.block_table[0]).ref_count, 3);
  EXPECT_EQ(bm.block(a.block_table[1]).ref_count, 2);
  // a: 3 blocks, b: 1 new, c: 2 new, d: 3 new.
  EXPECT_EQ(bm.num_free_blocks(), 16 - 9);
  EXPECT_EQ(invariants(bm, {&a, &b, &c, &d}), "");
}

TEST(BlockManager, BlockHoldingTheLastTokenIsAlwaysComputed) {
  BlockManager bm(16, kBlock);
  Sequence a = make_seq(0, iota_tokens(12)); // exactly three full blocks
  bm.allocate(a);
  Sequence b = make_seq(1, iota_tokens(12));
  const BlockManager::PrefixMatch m = bm.match_prefix(b);
  EXPECT_EQ(m.num_hit_blocks, 2);
  EXPECT_EQ(m.num_blocks_needed, 1);
  bm.allocate(b);
  EXPECT_EQ(b.num_cached_tokens, 8);
  EXPECT_LT(b.num_cached_tokens, b.num_tokens());
  EXPECT_NE(b.block_table[2], a.block_table[2]);
  // A one-block prompt can never hit.
  Sequence c = make_seq(2, iota_tokens(4));
  bm.allocate(c);
  EXPECT_EQ(c.num_cached_tokens, 0);
  EXPECT_EQ(invariants(bm, {&a, &b, &c}), "");
}

TEST(BlockManager, HashCollisionIsNeverAHit) {
  BlockManager bm(16, kBlock);
  bm.set_hash_function_for_testing(&colliding_hash);
  Sequence a = make_seq(0, {1, 2, 3, 4, 9});
  Sequence b = make_seq(1, {5, 6, 7, 8, 9});
  bm.allocate(a);
  ASSERT_EQ(bm.lookup(42), a.block_table[0]);
  EXPECT_EQ(bm.match_prefix(b).num_hit_blocks, 0);
  bm.allocate(b);
  EXPECT_EQ(b.num_cached_tokens, 0);
  EXPECT_NE(b.block_table[0], a.block_table[0]);
  // The map entry now names b's block; a's identical tokens still match it
  // only through the token comparison, which fails, so no false sharing.
  Sequence c = make_seq(2, {1, 2, 3, 4, 9});
  bm.allocate(c);
  EXPECT_EQ(c.num_cached_tokens, 0);
  Sequence d = make_seq(3, {5, 6, 7, 8, 1});
  bm.allocate(d);
  EXPECT_EQ(d.num_cached_tokens, 0); // c re-registered 42 for {1,2,3,4}
  EXPECT_EQ(invariants(bm, {&a, &b, &c, &d}), "");
}

TEST(BlockManager, FreedBlocksStayCachedUntilReallocated) {
  BlockManager bm(4, kBlock);
  const auto prompt = iota_tokens(9); // two full blocks and one partial
  Sequence a = make_seq(0, prompt);
  bm.allocate(a);
  const std::vector<int32_t> a_blocks = a.block_table;
  bm.deallocate(a);
  EXPECT_TRUE(a.block_table.empty());
  EXPECT_EQ(bm.num_free_blocks(), 4);
  EXPECT_EQ(invariants(bm, {}), "");

  // The partial block caches nothing, so it is handed out first.
  Sequence x = make_seq(1, {50, 51});
  bm.allocate(x);
  EXPECT_EQ(x.block_table[0], a_blocks[2]);
  bm.deallocate(x);

  Sequence b = make_seq(2, prompt);
  bm.allocate(b);
  EXPECT_EQ(b.num_cached_tokens, 8);
  EXPECT_EQ(b.block_table[0], a_blocks[0]);
  EXPECT_EQ(b.block_table[1], a_blocks[1]);
  bm.deallocate(b);

  // A different prompt that needs every block evicts them all.
  Sequence c = make_seq(3, iota_tokens(16, 100));
  ASSERT_TRUE(bm.can_allocate(c));
  bm.allocate(c);
  EXPECT_EQ(bm.num_free_blocks(), 0);
  bm.deallocate(c);
  Sequence d = make_seq(4, prompt);
  bm.allocate(d);
  EXPECT_EQ(d.num_cached_tokens, 0);
  EXPECT_EQ(invariants(bm, {&d}), "");
}

TEST(BlockManager, LeastRecentlyFreedCachedBlockIsEvictedFirst) {
  BlockManager bm(4, kBlock);
  Sequence a = make_seq(0, iota_tokens(5, 1));   // full block + partial
  Sequence b = make_seq(1, iota_tokens(5, 100)); // full block + partial
  bm.allocate(a);
  bm.allocate(b);
  bm.deallocate(a); // a's full block freed before b's
  bm.deallocate(b);
  // Two fresh blocks: the two partial ones; a third takes a's full block.
  Sequence c = make_seq(2, iota_tokens(12, 500));
  bm.allocate(c);
  Sequence a2 = make_seq(3, iota_tokens(5, 1));
  Sequence b2 = make_seq(4, iota_tokens(5, 100));
  EXPECT_EQ(bm.match_prefix(a2).num_hit_blocks, 0);
  EXPECT_EQ(bm.match_prefix(b2).num_hit_blocks, 1);
  EXPECT_EQ(invariants(bm, {&c}), "");
}

TEST(BlockManager, SharedBlocksAreReleasedByTheLastHolder) {
  BlockManager bm(8, kBlock);
  Sequence a = make_seq(0, iota_tokens(10));
  Sequence b = make_seq(1, iota_tokens(10));
  bm.allocate(a);
  bm.allocate(b);
  const int32_t shared = a.block_table[0];
  EXPECT_EQ(bm.block(shared).ref_count, 2);
  EXPECT_EQ(bm.num_free_blocks(), 8 - 4);
  bm.deallocate(a);
  EXPECT_EQ(bm.block(shared).ref_count, 1);
  EXPECT_EQ(bm.num_free_blocks(), 8 - 3); // only a's own last block
  EXPECT_EQ(a.num_cached_tokens, 0);
  EXPECT_EQ(invariants(bm, {&b}), "");
  bm.deallocate(b);
  EXPECT_EQ(bm.block(shared).ref_count, 0);
  EXPECT_EQ(bm.num_free_blocks(), 8);
  EXPECT_EQ(invariants(bm, {}), "");
}

TEST(BlockManager, CanAllocateCountsOnlyBlocksTakenFromTheFreeList) {
  BlockManager bm(4, kBlock);
  Sequence a = make_seq(0, iota_tokens(12)); // three blocks
  bm.allocate(a);
  Sequence b = make_seq(1, iota_tokens(12)); // two hits in use + one fresh
  EXPECT_EQ(bm.match_prefix(b).num_blocks_needed, 1);
  EXPECT_TRUE(bm.can_allocate(b));
  Sequence other = make_seq(2, {7});
  bm.allocate(other);
  EXPECT_FALSE(bm.can_allocate(b));
  bm.deallocate(a);
  // Now the hits sit on the free list: taking them costs free blocks too.
  EXPECT_EQ(bm.match_prefix(b).num_free_hit_blocks, 2);
  EXPECT_EQ(bm.match_prefix(b).num_blocks_needed, 3);
  EXPECT_TRUE(bm.can_allocate(b));
  bm.allocate(b);
  EXPECT_EQ(b.num_cached_tokens, 8);
  EXPECT_EQ(bm.num_free_blocks(), 0);
  EXPECT_EQ(invariants(bm, {&b, &other}), "");
}

TEST(BlockManager, DecodeAppendsABlockExactlyWhenATokenStartsOne) {
  BlockManager bm(8, kBlock);
  Sequence s = make_seq(0, {1, 2, 3});
  bm.allocate(s);
  ASSERT_EQ(s.block_table.size(), 1u);
  for (int32_t t = 4; t <= 13; ++t) {
    s.token_ids.push_back(t); // sampled last step; its KV is written now
    const int free_before = bm.num_free_blocks();
    const bool starts_block = (s.num_tokens() - 1) % kBlock == 0;
    ASSERT_TRUE(bm.can_append(s));
    bm.may_append(s);
    EXPECT_EQ(bm.num_free_blocks(), free_before - (starts_block ? 1 : 0))
        << s.num_tokens() << " tokens";
    EXPECT_EQ(static_cast<int>(s.block_table.size()), s.num_blocks());
    const Block &last = bm.block(s.block_table.back());
    EXPECT_EQ(last.has_hash, s.num_tokens() % kBlock == 0)
        << s.num_tokens() << " tokens";
    EXPECT_EQ(invariants(bm, {&s}), "");
  }
  // Blocks filled during decode are shared by a later prompt.
  Sequence p = make_seq(1, concat(iota_tokens(12), {77}));
  bm.allocate(p);
  EXPECT_EQ(p.num_cached_tokens, 12);
  EXPECT_EQ(invariants(bm, {&s, &p}), "");
}

TEST(BlockManager, CanAppendNeedsAFreeBlockOnlyAtABoundary) {
  BlockManager bm(2, kBlock);
  Sequence a = make_seq(0, {1, 2, 3, 4});
  Sequence b = make_seq(1, {5, 6});
  bm.allocate(a);
  bm.allocate(b);
  ASSERT_EQ(bm.num_free_blocks(), 0);
  b.token_ids.push_back(7);
  EXPECT_TRUE(bm.can_append(b)); // third token, same block
  a.token_ids.push_back(5);
  EXPECT_FALSE(bm.can_append(a)); // fifth token starts block two
  bm.deallocate(b);
  EXPECT_TRUE(bm.can_append(a));
  bm.may_append(a);
  EXPECT_EQ(a.block_table.size(), 2u);
  EXPECT_EQ(invariants(bm, {&a}), "");
}

TEST(BlockManager, InvariantCheckCatchesAWrongRefCount) {
  BlockManager bm(4, kBlock);
  Sequence a = make_seq(0, iota_tokens(6));
  bm.allocate(a);
  EXPECT_NE(invariants(bm, {}), "");       // a's blocks unaccounted
  EXPECT_NE(invariants(bm, {&a, &a}), ""); // counted twice
  Sequence forged = a;
  forged.token_ids[0] = 1000; // tokens the block lacks
  EXPECT_NE(invariants(bm, {&forged}), "");
  EXPECT_EQ(invariants(bm, {&a}), "");
}
