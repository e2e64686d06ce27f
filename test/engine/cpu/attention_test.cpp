// test/engine/cpu/attention_test.cpp - paged attention against an fp64
// reference over contiguous keys and values: any block size and block order,
// GQA groups, mixed prefill/decode batches, fp32 and bf16 caches, and every
// instruction-set level.
#include "engine/cpu/attention.h"
#include "engine/error.h"
#include "isa_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <numeric>
#include <tuple>

namespace engine {
namespace {

using test::available_isas;
using test::random_floats;

struct Seq {
  int n_q;     // query tokens this step
  int context; // total length including them
};

// Sequences with their keys/values as contiguous [context][kv_heads][d]
// arrays, queries as [total_q][heads][d].
struct Problem {
  int heads, kv_heads, d;
  std::vector<Seq> seqs;
  std::vector<std::vector<float>> k, v;
  std::vector<float> q;
  std::vector<int32_t> cu;
};

Problem make_problem(int heads, int kv_heads, int d, std::vector<Seq> seqs,
                     uint32_t seed) {
  std::mt19937 rng(seed);
  Problem p{heads, kv_heads, d, std::move(seqs), {}, {}, {}, {0}};
  for (const Seq &s : p.seqs) {
    p.k.push_back(random_floats(size_t(s.context) * kv_heads * d, rng));
    p.v.push_back(random_floats(size_t(s.context) * kv_heads * d, rng));
    p.cu.push_back(p.cu.back() + s.n_q);
  }
  p.q = random_floats(size_t(p.cu.back()) * heads * d, rng);
  return p;
}

// A paged cache holding the problem's sequences in shuffled blocks.
struct Cache {
  std::vector<float> kf, vf;
  std::vector<uint16_t> kb, vb;
  std::vector<int32_t> tables;
  int max_blocks = 0;
  PagedKv kv;
};

Cache fill_cache(const Problem &p, int block_size, DType dtype, uint32_t seed) {
  Cache c;
  int total_blocks = 0;
  for (const Seq &s : p.seqs) {
    int blocks = (s.context + block_size - 1) / block_size;
    c.max_blocks = std::max(c.max_blocks, blocks);
    total_blocks += blocks;
  }
  total_blocks += 3; // unused blocks in between
  const size_t row = size_t(p.kv_heads) * p.d;
  const size_t slots = size_t(total_blocks) * block_size;
  if (dtype == DType::F32) {
    c.kf.assign(slots * row, NAN); // unused slots must never be read
    c.vf.assign(slots * row, NAN);
  } else {
    c.kb.assign(slots * row, 0x7fc0); // bf16 NaN
    c.vb.assign(slots * row, 0x7fc0);
  }
  c.kv = {dtype == DType::F32 ? static_cast<void *>(c.kf.data()) : c.kb.data(),
          dtype == DType::F32 ? static_cast<void *>(c.vf.data()) : c.vb.data(),
          block_size,
          p.kv_heads,
          p.d,
          dtype,
          total_blocks};
  std::vector<int32_t> ids(static_cast<size_t>(total_blocks));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(seed));
  c.tables.assign(p.seqs.size() * size_t(c.max_blocks), -1);
  size_t next = 0;
  for (size_t s = 0; s < p.seqs.size(); ++s) {
    int len = p.seqs[s].context;
    for (int b = 0; b < (len + block_size - 1) / block_size; ++b)
      c.tables[s * c.max_blocks + b] = ids[next++];
    std::vector<int32_t> slot_mapping(static_cast<size_t>(len));
    for (int t = 0; t < len; ++t)
      slot_mapping[t] =
          c.tables[s * c.max_blocks + t / block_size] * block_size +
          t % block_size;
    store_kv(p.k[s].data(), p.v[s].data(), slot_mapping.data(), len, c.kv);
  }
  return c;
}

std::vector<float> run_attention(ThreadPool &pool, const Problem &p,
                                 const Cache &c) {
  std::vector<int32_t> lens;
  for (const Seq &s : p.seqs)
    lens.push_back(s.context);
  AttentionBatch batch{int(p.seqs.size()), p.cu.data(), lens.data(),
                       c.tables.data(), c.max_blocks};
  std::vector<float> out(p.q.size(), NAN);
  paged_attention(pool, p.q.data(), p.heads, batch, c.kv,
                  float(1.0 / std::sqrt(double(p.d))), out.data());
  return out;
}

float rounded(float x, DType dtype) {
  return dtype == DType::BF16 ? bf16_to_f32(f32_to_bf16(x)) : x;
}

// fp64 causal softmax attention over the contiguous keys and values (rounded
// to the cache's type). Tolerance, absolute, for outputs that are weighted
// means of values in [-1, 1]:
//  - fp32 kernels accumulate in fp32 with scores of magnitude ≤ √d·(1/√d):
//    a few ulps of the summed terms; 2e-5 covers hundreds of keys.
//  - prefill tiles at the amx and avx512bf16 levels round q, k, v and the
//    probabilities to bf16 (2⁻⁹ relative each): scores move by
//    ≤ scale·Σ|q·k|·2⁻⁸ (about 1e-2 here, so weights by about 1%), and
//    outputs by about 1e-2 at worst. Decode (one query a sequence) stays in
//    fp32 at every level.
double tolerance(int n_q) {
  return n_q > 1 && active_isa() >= Isa::Avx512Bf16 ? 1e-2 : 2e-5;
}

void expect_matches_reference(const Problem &p, const std::vector<float> &out,
                              DType dtype) {
  const double scale = 1.0 / std::sqrt(double(p.d));
  const int group = p.heads / p.kv_heads;
  for (size_t s = 0; s < p.seqs.size(); ++s) {
    const Seq &seq = p.seqs[s];
    for (int j = 0; j < seq.n_q; ++j) {
      int pos = seq.context - seq.n_q + j;
      int64_t token = p.cu[s] + j;
      for (int h = 0; h < p.heads; ++h) {
        int g = h / group;
        const float *q = &p.q[(token * p.heads + h) * p.d];
        std::vector<double> score(static_cast<size_t>(pos) + 1);
        double mx = -INFINITY;
        for (int t = 0; t <= pos; ++t) {
          double dot = 0;
          for (int c = 0; c < p.d; ++c)
            dot +=
                double(q[c]) *
                rounded(p.k[s][(size_t(t) * p.kv_heads + g) * p.d + c], dtype);
          score[t] = dot * scale;
          mx = std::max(mx, score[t]);
        }
        double sum = 0;
        for (double &e : score)
          sum += e = std::exp(e - mx);
        for (int c = 0; c < p.d; ++c) {
          double ref = 0;
          for (int t = 0; t <= pos; ++t)
            ref +=
                score[t] *
                rounded(p.v[s][(size_t(t) * p.kv_heads + g) * p.d + c], dtype);
          ref /= sum;
          ASSERT_NEAR(ref, out[(token * p.heads + h) * p.d + c],
                      tolerance(seq.n_q))
              << "seq " << s << " query " << j << " head " << h << " dim " << c;
        }
      }
    }
  }
}

class AttentionPerIsa : public test::PerIsa {};

// Decode, prefill from scratch, prefill after a cached prefix, and a long
// decode, in one batch.
const std::vector<Seq> kMixed = {{1, 37}, {5, 5}, {17, 50}, {1, 300}};

TEST_P(AttentionPerIsa, PagedMatchesReferenceForAnyBlockSizeAndOrder) {
  ThreadPool pool(2);
  Problem p = make_problem(4, 2, 128, kMixed, 1);
  std::vector<float> first;
  for (int block_size : {1, 16, 256}) {
    Cache c = fill_cache(p, block_size, DType::F32, uint32_t(block_size));
    std::vector<float> out = run_attention(pool, p, c);
    expect_matches_reference(p, out, DType::F32);
    // Keys are visited in the same chunks whatever the paging.
    if (first.empty())
      first = out;
    else
      EXPECT_EQ(0, std::memcmp(first.data(), out.data(), out.size() * 4))
          << "block size " << block_size;
  }
}

TEST_P(AttentionPerIsa, GroupedQueryHeadsReadTheirSharedKvHead) {
  ThreadPool pool(2);
  for (int group : {1, 2, 3, 4, 8}) {
    Problem p = make_problem(2 * group, 2, 64, {{3, 20}, {1, 45}}, 2);
    Cache c = fill_cache(p, 16, DType::F32, 3);
    expect_matches_reference(p, run_attention(pool, p, c), DType::F32);
  }
}

TEST_P(AttentionPerIsa, LongPrefillsMatchReference) {
  // Many query tiles per sequence, full and partial (AMX at that level).
  ThreadPool pool(2);
  for (auto [heads, kv_heads, d] :
       {std::tuple<int, int, int>{4, 1, 64}, {2, 2, 128}, {2, 1, 128}}) {
    Problem p = make_problem(heads, kv_heads, d, {{70, 100}, {40, 40}}, 11);
    for (DType dtype : {DType::F32, DType::BF16}) {
      Cache c = fill_cache(p, 16, dtype, 12);
      expect_matches_reference(p, run_attention(pool, p, c), dtype);
    }
  }
}

TEST_P(AttentionPerIsa, BatchedDecodeMatchesReferenceAndEachSequenceAlone) {
  // Enough decode sequences that a tile takes several KV heads at once.
  std::vector<Seq> seqs;
  for (int s = 0; s < 12; ++s)
    seqs.push_back({1, 5 + 23 * s});
  Problem all = make_problem(8, 4, 128, seqs, 13);
  ThreadPool pool(2), solo(1);
  for (DType dtype : {DType::F32, DType::BF16}) {
    Cache c = fill_cache(all, 16, dtype, 14);
    std::vector<float> batched = run_attention(pool, all, c);
    expect_matches_reference(all, batched, dtype);
    const size_t row = size_t(all.heads) * all.d;
    for (size_t s = 0; s < seqs.size(); s += 5) {
      Problem one = all;
      one.seqs = {seqs[s]};
      one.k = {all.k[s]};
      one.v = {all.v[s]};
      one.cu = {0, 1};
      one.q.assign(all.q.begin() + s * row, all.q.begin() + (s + 1) * row);
      Cache single = c;
      single.tables.assign(c.tables.begin() + s * c.max_blocks,
                           c.tables.begin() + (s + 1) * c.max_blocks);
      single.kv.k = dtype == DType::F32 ? static_cast<void *>(single.kf.data())
                                        : single.kb.data();
      single.kv.v = dtype == DType::F32 ? static_cast<void *>(single.vf.data())
                                        : single.vb.data();
      std::vector<float> alone = run_attention(solo, one, single);
      EXPECT_EQ(0, std::memcmp(alone.data(), batched.data() + s * row,
                               alone.size() * 4))
          << dtype_name(dtype) << " sequence " << s;
    }
  }
}

TEST_P(AttentionPerIsa, LongDecodesSplitAlongTheSequenceMatchReference) {
  // Contexts around the decode partition (512 keys) and several of them,
  // beside a prefill; GQA 2 (whole-row tiles of 8 KV heads) and 4.
  const std::vector<Seq> seqs = {{1, 1300}, {1, 513},  {1, 512},
                                 {5, 700},  {1, 2048}, {1, 33}};
  ThreadPool pool(2), solo(1);
  for (auto [heads, kv_heads] : {std::pair<int, int>{16, 8}, {8, 2}}) {
    Problem all = make_problem(heads, kv_heads, 128, seqs, 21);
    for (DType dtype : {DType::F32, DType::BF16}) {
      Cache c = fill_cache(all, 16, dtype, 22);
      std::vector<float> batched = run_attention(pool, all, c);
      expect_matches_reference(all, batched, dtype);
      // The split depends on the sequence alone: the same bits alone.
      const size_t row = size_t(all.heads) * all.d;
      for (size_t s = 0; s < seqs.size(); ++s) {
        if (seqs[s].n_q != 1)
          continue;
        Problem one = all;
        one.seqs = {seqs[s]};
        one.k = {all.k[s]};
        one.v = {all.v[s]};
        one.cu = {0, 1};
        one.q.assign(all.q.begin() + all.cu[s] * row,
                     all.q.begin() + (all.cu[s] + 1) * row);
        Cache single = c;
        single.tables.assign(c.tables.begin() + s * c.max_blocks,
                             c.tables.begin() + (s + 1) * c.max_blocks);
        single.kv.k = dtype == DType::F32
                          ? static_cast<void *>(single.kf.data())
                          : single.kb.data();
        single.kv.v = dtype == DType::F32
                          ? static_cast<void *>(single.vf.data())
                          : single.vb.data();
        std::vector<float> alone = run_attention(solo, one, single);
        EXPECT_EQ(0, std::memcmp(alone.data(), batched.data() + all.cu[s] * row,
                                 alone.size() * 4))
            << dtype_name(dtype) << " sequence " << s << " heads " << heads;
      }
    }
  }
}

TEST_P(AttentionPerIsa, HeadDimsWithoutAVectorKernelUseThePortableOne) {
  ThreadPool pool(2);
  Problem p = make_problem(2, 1, 40, {{4, 9}, {1, 33}}, 4);
  Cache c = fill_cache(p, 16, DType::F32, 5);
  expect_matches_reference(p, run_attention(pool, p, c), DType::F32);
}

TEST_P(AttentionPerIsa, Bf16CacheMatchesReferenceOnRoundedKeysAndValues) {
  ThreadPool pool(2);
  Problem p = make_problem(4, 2, 128, kMixed, 6);
  Cache c = fill_cache(p, 16, DType::BF16, 7);
  expect_matches_reference(p, run_attention(pool, p, c), DType::BF16);
}

TEST_P(AttentionPerIsa, EachSequenceInABatchGetsExactlyItsResultAlone) {
  ThreadPool pool(3);
  Problem all = make_problem(4, 2, 128, kMixed, 8);
  Cache c = fill_cache(all, 16, DType::F32, 9);
  std::vector<float> batched = run_attention(pool, all, c);
  const size_t row = size_t(all.heads) * all.d;
  for (size_t s = 0; s < all.seqs.size(); ++s) {
    Problem one = all;
    one.seqs = {all.seqs[s]};
    one.k = {all.k[s]};
    one.v = {all.v[s]};
    one.cu = {0, all.seqs[s].n_q};
    one.q.assign(all.q.begin() + all.cu[s] * row,
                 all.q.begin() + all.cu[s + 1] * row);
    Cache single = c;
    single.tables.assign(c.tables.begin() + s * c.max_blocks,
                         c.tables.begin() + (s + 1) * c.max_blocks);
    single.kv.k = single.kf.data();
    single.kv.v = single.vf.data();
    ThreadPool solo(1);
    std::vector<float> alone = run_attention(solo, one, single);
    EXPECT_EQ(0, std::memcmp(alone.data(), batched.data() + all.cu[s] * row,
                             alone.size() * 4))
        << "sequence " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, AttentionPerIsa,
                         testing::ValuesIn(available_isas()),
                         test::isa_param_name);

TEST(StoreKv, SkipsSlotMinusOneAndRoundsToBf16) {
  std::vector<float> k = {1.0f, 2.0f, 1.00390625f, 4.0f};
  std::vector<float> v = {5.0f, 6.0f, 7.0f, 8.0f};
  std::vector<uint16_t> kc(8, 0), vc(8, 0);
  PagedKv kv{kc.data(), vc.data(), 2, 1, 2, DType::BF16, 2};
  int32_t slots[2] = {-1, 3};
  store_kv(k.data(), v.data(), slots, 2, kv);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(0, kc[i]) << i;
  EXPECT_EQ(f32_to_bf16(1.00390625f), kc[6]);
  EXPECT_EQ(f32_to_bf16(8.0f), vc[7]);
}

class StoreKvPerIsa : public test::PerIsa {};

TEST_P(StoreKvPerIsa, Bf16CacheHoldsExactlyTheRoundedValues) {
  const int heads = 2, d = 128;
  std::mt19937 rng(10);
  auto k = random_floats(3 * heads * d, rng, -100, 100);
  auto v = random_floats(3 * heads * d, rng, -1e-3f, 1e-3f);
  std::vector<uint16_t> kc(4 * heads * d), vc(4 * heads * d);
  PagedKv kv{kc.data(), vc.data(), 4, heads, d, DType::BF16, 1};
  int32_t slots[3] = {2, 0, 3};
  store_kv(k.data(), v.data(), slots, 3, kv);
  for (int t = 0; t < 3; ++t)
    for (int i = 0; i < heads * d; ++i) {
      ASSERT_EQ(f32_to_bf16(k[t * heads * d + i]),
                kc[slots[t] * heads * d + i]);
      ASSERT_EQ(f32_to_bf16(v[t * heads * d + i]),
                vc[slots[t] * heads * d + i]);
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, StoreKvPerIsa,
                         testing::ValuesIn(available_isas()),
                         test::isa_param_name);

TEST(StoreKv, SlotOutsideThePoolIsAnError) {
  std::vector<float> kc(8), vc(8), k(2), v(2);
  PagedKv kv{kc.data(), vc.data(), 2, 1, 2, DType::F32, 2};
  int32_t slot = 4;
  EXPECT_THROW(store_kv(k.data(), v.data(), &slot, 1, kv), Error);
  slot = -2;
  EXPECT_THROW(store_kv(k.data(), v.data(), &slot, 1, kv), Error);
}

TEST(PagedAttention, InconsistentBatchesAreErrors) {
  ThreadPool pool(1);
  std::vector<float> kc(64), vc(64), q(4), out(4);
  PagedKv kv{kc.data(), vc.data(), 4, 1, 4, DType::F32, 4};
  int32_t cu[2] = {0, 1}, table[2] = {0, 1};
  auto call = [&](int32_t len, int32_t *tbl, int heads = 1) {
    AttentionBatch b{1, cu, &len, tbl, 2};
    paged_attention(pool, q.data(), heads, b, kv, 1.0f, out.data());
  };
  EXPECT_NO_THROW(call(5, table));
  EXPECT_THROW(call(0, table), Error) << "more queries than context";
  EXPECT_THROW(call(9, table), Error) << "longer than the block table";
  int32_t bad[2] = {0, 7};
  EXPECT_THROW(call(5, bad), Error) << "block id outside the pool";
  PagedKv two_heads = kv;
  two_heads.num_kv_heads = 2;
  kv = two_heads;
  EXPECT_THROW(call(5, table, 3), Error) << "heads not a multiple";
}

} // namespace
} // namespace engine
