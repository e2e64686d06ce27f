// engine/cpu/attention.cpp - store_kv() and paged_attention(): argument
// checks, the portable tile kernel, and the split of (sequence, KV head,
// query tile) work items across threads (see attention.h).
#include "engine/cpu/attention.h"

#include "engine/cpu/attention_kernels.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/matmul_kernels.h"
#include "engine/error.h"

#include <perf/perf.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace engine {
namespace {

using cpu_detail::AttentionTile;
using cpu_detail::kKeyChunk;
using cpu_detail::kMaxTileRows;

[[noreturn]] void fail(const char *fn, const std::string &what) {
  throw Error(std::string(fn) + ": " + what);
}

void check_kv(const char *fn, const PagedKv &kv) {
  if (!kv.k || !kv.v)
    fail(fn, "null KV cache pointer");
  if (kv.block_size < 1 || kv.num_kv_heads < 1 || kv.head_dim < 1)
    fail(fn, "bad KV cache shape (block_size " + std::to_string(kv.block_size) +
                 ", num_kv_heads " + std::to_string(kv.num_kv_heads) +
                 ", head_dim " + std::to_string(kv.head_dim) + ")");
  if (kv.dtype != DType::F32 && kv.dtype != DType::BF16)
    fail(fn, "KV cache dtype " + std::string(dtype_name(kv.dtype)) +
                 " is not supported (F32 or BF16)");
}

float load(const void *base, DType dtype, int64_t i) {
  return dtype == DType::F32
             ? static_cast<const float *>(base)[i]
             : bf16_to_f32(static_cast<const uint16_t *>(base)[i]);
}

// The same algorithm as the AVX-512 tile (chunks of kKeyChunk keys from
// position 0, online softmax), in plain C++.
void attend_tile_scalar_impl(const AttentionTile &t) {
  const int rows = t.tokens * t.group, d = t.head_dim;
  const int64_t last_pos = t.first_pos + t.tokens - 1;
  std::vector<float> o(size_t(rows) * d, 0.0f), s(kKeyChunk);
  std::vector<float> m(size_t(rows), -INFINITY), l(size_t(rows), 0.0f);
  int64_t offsets[kKeyChunk];
  for (int64_t t0 = 0; t0 <= last_pos; t0 += kKeyChunk) {
    int n = int(std::min<int64_t>(kKeyChunk, last_pos + 1 - t0));
    for (int j = 0; j < n; ++j) {
      int64_t p = t0 + j;
      offsets[j] = (int64_t(t.block_table[p / t.block_size]) * t.block_size +
                    p % t.block_size) *
                   t.token_stride;
    }
    for (int r = 0; r < rows; ++r) {
      const float *q = t.q + (r / t.group) * t.q_stride + (r % t.group) * d;
      int64_t visible =
          std::min<int64_t>(n, t.first_pos + r / t.group - t0 + 1);
      if (visible <= 0)
        continue;
      float mx = -INFINITY;
      for (int j = 0; j < visible; ++j) {
        float dot = 0;
        for (int c = 0; c < d; ++c)
          dot += q[c] * load(t.k, t.dtype, offsets[j] + c);
        s[j] = dot * t.scale;
        mx = std::max(mx, s[j]);
      }
      float m_new = std::max(mx, m[r]);
      float alpha = m[r] == -INFINITY ? 0.0f : std::exp(m[r] - m_new);
      float sum = 0;
      for (int j = 0; j < visible; ++j)
        sum += s[j] = std::exp(s[j] - m_new);
      l[r] = l[r] * alpha + sum;
      m[r] = m_new;
      float *orow = o.data() + size_t(r) * d;
      for (int c = 0; c < d; ++c) {
        float acc = orow[c] * alpha;
        for (int j = 0; j < visible; ++j)
          acc += s[j] * load(t.v, t.dtype, offsets[j] + c);
        orow[c] = acc;
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
    float *dst = t.out + (r / t.group) * t.q_stride + (r % t.group) * d;
    for (int c = 0; c < d; ++c)
      dst[c] = o[size_t(r) * d + c] / l[r];
  }
}

// Tiles with at least this many query rows multiply in bf16, with AMX or
// AVX512-BF16 (0: never).
constexpr int kDefaultBf16MinRows = 16;
std::atomic<int> bf16_attention_min_rows{kDefaultBf16MinRows};

// Decode over a long context is split along the sequence into partitions of
// at least this many keys, each its own work item, merged afterwards.
// Unsplit, one sequence is at most one tile per KV head, and tiles of one
// head read its 256-byte pieces 2 KiB apart (4 GB/s over 4,096 keys here);
// split, its tiles take whole token rows of every head (10 GB/s). Each
// partition costs a start whose first keys wait on memory, so shorter
// contexts stay whole (16 sequences of 600 keys split in 512 + 88 lost 15%).
// The split depends only on the sequence's length, so a sequence decodes
// alike alone and in a batch.
constexpr int64_t kDecodePartition = 512;

struct WorkItem {
  int seq;
  int kv_head;     // the first of kv_heads
  int kv_heads;    // > 1 only for decode tiles
  int first_token; // within the sequence's queries
  int tokens;
  int64_t key_begin = 0, key_end = INT64_MAX; // a decode partition's keys
  int64_t partial = -1; // its results' offset in the partials, if split
};

// The partitions of one decode tile (a sequence's token, kv_heads heads from
// kv_head), whose results lie one after the other from `partial`.
struct Merge {
  int seq;
  int kv_head;
  int kv_heads;
  int parts;
  int64_t partial;
};

// Combines a split decode's partitions in their order along the sequence:
// each row's output is Σ_p o_p·e^(m_p − M) / Σ_p l_p·e^(m_p − M), M the
// largest m_p (each partition holds rows × d unnormalized outputs, then the
// rows' maxima m_p and sums l_p).
void merge_partitions(const float *partial, int parts, int rows, int d,
                      float *out) {
  const int64_t size = int64_t(rows) * (d + 2);
  for (int r = 0; r < rows; ++r) {
    float mx = -INFINITY;
    for (int p = 0; p < parts; ++p)
      mx = std::max(mx, partial[p * size + rows * d + r]);
    float sum = 0;
    for (int p = 0; p < parts; ++p)
      sum += partial[p * size + rows * d + rows + r] *
             std::exp(partial[p * size + rows * d + r] - mx);
    float *dst = out + int64_t(r) * d;
    std::fill(dst, dst + d, 0.0f);
    for (int p = 0; p < parts; ++p) {
      const float w = std::exp(partial[p * size + rows * d + r] - mx) / sum;
      const float *o = partial + p * size + int64_t(r) * d;
      for (int c = 0; c < d; ++c)
        dst[c] += w * o[c];
    }
  }
}

} // namespace

namespace cpu_detail {
void attend_tile_scalar(const AttentionTile &t) { attend_tile_scalar_impl(t); }
} // namespace cpu_detail

void set_attention_bf16_min_rows(int rows) {
  bf16_attention_min_rows.store(rows < 0 ? kDefaultBf16MinRows : rows);
}

void store_kv(const float *k, const float *v, const int32_t *slot_mapping,
              int64_t n_tokens, const PagedKv &kv) {
  check_kv("store_kv", kv);
  const int64_t row = int64_t(kv.num_kv_heads) * kv.head_dim;
  const int64_t slots = kv.num_blocks * kv.block_size;
  // The vector conversion writes whole groups of 32.
  const bool vector_bf16 = kv.dtype == DType::BF16 && row % 32 == 0 &&
                           active_isa() >= Isa::Avx512Bf16;
  for (int64_t t = 0; t < n_tokens; ++t) {
    int64_t slot = slot_mapping[t];
    if (slot == -1)
      continue;
    if (slot < 0 || (slots > 0 && slot >= slots))
      fail("store_kv", "slot " + std::to_string(slot) + " of token " +
                           std::to_string(t) + " is outside the cache (" +
                           std::to_string(slots) + " slots)");
    if (kv.dtype == DType::F32) {
      std::memcpy(static_cast<float *>(kv.k) + slot * row, k + t * row,
                  size_t(row) * 4);
      std::memcpy(static_cast<float *>(kv.v) + slot * row, v + t * row,
                  size_t(row) * 4);
    } else {
      uint16_t *kd = static_cast<uint16_t *>(kv.k) + slot * row;
      uint16_t *vd = static_cast<uint16_t *>(kv.v) + slot * row;
      if (vector_bf16) {
        // Same rounding (to nearest even) as f32_to_bf16, 32 at a time.
        cpu_detail::convert_rows_bf16(k + t * row, row, 0, 1, kd, row);
        cpu_detail::convert_rows_bf16(v + t * row, row, 0, 1, vd, row);
        continue;
      }
      for (int64_t i = 0; i < row; ++i) {
        kd[i] = f32_to_bf16(k[t * row + i]);
        vd[i] = f32_to_bf16(v[t * row + i]);
      }
    }
  }
}

void paged_attention(ThreadPool &pool, const float *q, int num_heads,
                     const AttentionBatch &batch, const PagedKv &kv,
                     float scale, float *out) {
  const char *fn = "paged_attention";
  check_kv(fn, kv);
  if (num_heads < 1 || num_heads % kv.num_kv_heads != 0)
    fail(fn, "num_heads " + std::to_string(num_heads) +
                 " is not a multiple of num_kv_heads " +
                 std::to_string(kv.num_kv_heads));
  const int group = num_heads / kv.num_kv_heads;
  if (group > kMaxTileRows)
    fail(fn, std::to_string(group) + " query heads per KV head (at most " +
                 std::to_string(kMaxTileRows) + ")");
  if (batch.num_seqs < 0 ||
      (batch.num_seqs > 0 &&
       (!batch.cu_seqlens_q || !batch.context_lens || !batch.block_tables)))
    fail(fn, "bad batch description");

  // Tiles of about 32 rows (tokens × group): each key chunk copied into the
  // tile serves all of them (32 rows measured 10-20% faster than 16 on a 512
  // token prefill).
  const int tokens_per_tile = std::max(1, 32 / group);
  // Validate everything before any thread starts, so a bad batch throws
  // instead of reading outside the cache.
  const Isa isa = active_isa();
  const bool avx512 =
      isa >= Isa::Avx512 && cpu_detail::avx512_supports_head_dim(kv.head_dim);
  const bool avx2 = isa >= Isa::Avx2 &&
                    cpu_detail::avx2_attention_supports_head_dim(kv.head_dim);
  // Decode tiles (one token) take several KV heads: a token's heads are
  // adjacent in the cache, so the tile streams whole token rows instead of
  // head_dim-sized pieces 4 KiB apart (17 against 26 GB/s measured). As many
  // heads as keep at least 4 tiles per thread, counting a split sequence's
  // partitions.
  const bool avx2_decode =
      !avx512 && avx2 && cpu_detail::avx2_decode_supports(kv.head_dim, group);
  // Decode partitions: one per sequence, or one per kDecodePartition keys
  // where the tile kernel can split (the AVX-512 tile and the avx2 decode
  // tile; never AMX, which takes only tiles of many rows, below).
  auto partitions = [&](int s) -> int64_t {
    return avx512 || avx2_decode
               ? std::max<int64_t>(1, batch.context_lens[s] / kDecodePartition)
               : 1;
  };
  // Partition p of `parts` over `len` keys starts at a chunk boundary.
  auto partition_start = [](int64_t p, int64_t parts, int64_t len) {
    return p == parts ? len : p * len / parts / kKeyChunk * kKeyChunk;
  };
  int64_t decode_seqs = 0;
  for (int s = 0; s < batch.num_seqs; ++s)
    if (batch.cu_seqlens_q[s + 1] - batch.cu_seqlens_q[s] == 1)
      decode_seqs += partitions(s);
  // The avx2 decode tile keeps q and the output of every row in L1: 16 rows.
  const int decode_rows = avx512 ? kMaxTileRows : 16;
  int decode_heads = 1;
  if (avx512 || avx2_decode)
    for (int h = kv.num_kv_heads; h > 1; --h)
      if (kv.num_kv_heads % h == 0 && h * group <= decode_rows &&
          int64_t(decode_seqs) * (kv.num_kv_heads / h) >= 4 * pool.size()) {
        decode_heads = h;
        break;
      }

  thread_local std::vector<WorkItem> items;
  thread_local std::vector<Merge> merges;
  items.clear();
  merges.clear();
  int64_t partial_floats = 0;
  // The work, for perf_work: each sequence's keys and values read once,
  // the queries read and the outputs written; q·k and p·v over every
  // position each query row attends to.
  const int64_t kv_esize = int64_t(dtype_size(kv.dtype));
  uint64_t bytes = 0, attended = 0;
  for (int s = 0; s < batch.num_seqs; ++s) {
    int64_t n_q = int64_t(batch.cu_seqlens_q[s + 1]) - batch.cu_seqlens_q[s];
    int64_t len = batch.context_lens[s];
    if (n_q < 0 || n_q > len)
      fail(fn, "sequence " + std::to_string(s) + " has " + std::to_string(n_q) +
                   " queries but context length " + std::to_string(len));
    if (len > int64_t(batch.max_blocks) * kv.block_size)
      fail(fn, "sequence " + std::to_string(s) + " context length " +
                   std::to_string(len) + " exceeds its block table (" +
                   std::to_string(batch.max_blocks) + " blocks of " +
                   std::to_string(kv.block_size) + ")");
    const int32_t *table = batch.block_tables + int64_t(s) * batch.max_blocks;
    for (int64_t b = 0; b < (len + kv.block_size - 1) / kv.block_size; ++b)
      if (table[b] < 0 || (kv.num_blocks > 0 && table[b] >= kv.num_blocks))
        fail(fn, "sequence " + std::to_string(s) + " block " +
                     std::to_string(b) + " has id " + std::to_string(table[b]) +
                     " outside the cache");
    bytes += uint64_t(len) * kv.num_kv_heads * kv.head_dim * kv_esize * 2 +
             uint64_t(n_q) * num_heads * kv.head_dim * sizeof(float) * 2;
    attended += uint64_t(n_q) * (len - n_q) + uint64_t(n_q) * (n_q + 1) / 2;
    // Last tiles first: they see the most keys, so scheduling them early
    // balances the threads.
    const int heads = n_q == 1 ? decode_heads : 1;
    if (n_q == 1 && partitions(s) > 1) {
      const int64_t parts = partitions(s);
      const int64_t size = int64_t(group) * heads * (kv.head_dim + 2);
      for (int g = 0; g < kv.num_kv_heads; g += heads) {
        merges.push_back({s, g, heads, int(parts), partial_floats});
        for (int64_t p = 0; p < parts; ++p, partial_floats += size)
          items.push_back({s, g, heads, 0, 1, partition_start(p, parts, len),
                           partition_start(p + 1, parts, len), partial_floats});
      }
      continue;
    }
    for (int64_t first = (n_q - 1) / tokens_per_tile * tokens_per_tile;
         first >= 0; first -= tokens_per_tile)
      for (int g = 0; g < kv.num_kv_heads; g += heads)
        items.push_back({s, g, heads, int(first),
                         int(std::min<int64_t>(tokens_per_tile, n_q - first))});
  }
  perf_work(bytes, attended * uint64_t(num_heads) * kv.head_dim * 4);
  if (items.empty())
    return;

  // Tiles of many query rows (prefill) multiply in bf16, like the bf16
  // matmuls: with AMX, or AVX512-BF16 without it (a 512-token prefill on the
  // Zen 4 spent 15% in the fp32 tile); decode tiles (one token's heads) are
  // bound by memory and stay in fp32.
  const int bf16_min_rows = bf16_attention_min_rows.load();
  const int tile_rows = tokens_per_tile * group;
  const bool bf16_tiles = bf16_min_rows > 0 && cpu_detail::bf16_tile_supports(
                                                   kv.head_dim, tile_rows);
  const bool amx = bf16_tiles && isa == Isa::Amx;
  const bool bf16dp = bf16_tiles && isa == Isa::Avx512Bf16;
  const int64_t d = kv.head_dim, q_stride = int64_t(num_heads) * d;
  const int64_t esize = int64_t(dtype_size(kv.dtype));
  thread_local std::vector<float> partials;
  if (size_t(partial_floats) > partials.size())
    partials.resize(size_t(partial_floats));
  // Thread-locals named inside the workers would be the workers' own.
  float *const partial_base = partials.data();
  const std::vector<Merge> &merge_list = merges;
  std::atomic<size_t> next{0};
  const std::vector<WorkItem> &work = items;
  pool.run([&](int, int) {
    for (size_t i = next.fetch_add(1); i < work.size(); i = next.fetch_add(1)) {
      const WorkItem &w = work[i];
      int64_t n_q = batch.cu_seqlens_q[w.seq + 1] - batch.cu_seqlens_q[w.seq];
      int64_t token = batch.cu_seqlens_q[w.seq] + w.first_token;
      AttentionTile t;
      t.q = q + token * q_stride + int64_t(w.kv_head) * group * d;
      t.out = out + token * q_stride + int64_t(w.kv_head) * group * d;
      t.q_stride = q_stride;
      t.tokens = w.tokens;
      t.group = group;
      t.kv_heads = w.kv_heads;
      t.first_pos = batch.context_lens[w.seq] - n_q + w.first_token;
      t.k = static_cast<const char *>(kv.k) + w.kv_head * d * esize;
      t.v = static_cast<const char *>(kv.v) + w.kv_head * d * esize;
      t.dtype = kv.dtype;
      t.token_stride = int64_t(kv.num_kv_heads) * d;
      t.block_table = batch.block_tables + int64_t(w.seq) * batch.max_blocks;
      t.block_size = kv.block_size;
      t.head_dim = kv.head_dim;
      t.scale = scale;
      t.key_begin = w.key_begin;
      t.key_end = w.key_end;
      t.partial = w.partial < 0 ? nullptr : partial_base + w.partial;
      const bool bf16_tile =
          w.kv_heads == 1 && w.tokens * group >= bf16_min_rows && !t.partial;
      if (amx && bf16_tile)
        cpu_detail::attend_tile_amx(t);
      else if (bf16dp && bf16_tile)
        cpu_detail::attend_tile_avx512bf16(t);
      else if (avx512)
        cpu_detail::attend_tile_avx512(t);
      else if (avx2_decode && w.tokens == 1)
        cpu_detail::attend_decode_avx2(t);
      else if (avx2)
        cpu_detail::attend_tile_avx2(t);
      else
        cpu_detail::attend_tile_scalar(t);
    }
  });
  if (merges.empty())
    return;
  std::atomic<size_t> next_merge{0};
  pool.run([&](int, int) {
    for (size_t i = next_merge.fetch_add(1); i < merge_list.size();
         i = next_merge.fetch_add(1)) {
      const Merge &mg = merge_list[i];
      const int64_t token = batch.cu_seqlens_q[mg.seq];
      merge_partitions(
          partial_base + mg.partial, mg.parts, group * mg.kv_heads, kv.head_dim,
          out + token * q_stride + int64_t(mg.kv_head) * group * d);
    }
  });
}

} // namespace engine
