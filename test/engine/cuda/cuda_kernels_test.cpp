// Each CUDA kernel against the CPU backend's kernel on fresh random inputs:
// outputs are poisoned (all bits set: NaN) before every launch, so an
// element a kernel fails to write shows, and compared within bf16's
// rounding. Needs a GPU (ctest label gpu; skipped without one).
#include "engine/cpu/attention.h"
#include "engine/cpu/ops.h"
#include "engine/cpu/thread_pool.h"
#include "engine/cuda/device_buffer.h"
#include "engine/cuda/gemv.h"
#include "engine/cuda/kernels.h"
#include "engine/cuda/split_sampling.h"
#include "engine/dtype.h"
#include "engine/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace engine;
using namespace engine::cuda;

namespace {
std::mt19937_64 &rng() {
  static std::mt19937_64 r(20261126);
  return r;
}

std::vector<float> randn(size_t n, float scale = 1.f) {
  std::normal_distribution<float> d(0.f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng());
  return v;
}

std::vector<uint16_t> to_bf16(const std::vector<float> &v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = f32_to_bf16(v[i]);
  return out;
}
std::vector<float> from_bf16(const std::vector<uint16_t> &v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = bf16_to_f32(v[i]);
  return out;
}
/// The values the device sees: rounded to bf16.
std::vector<float> rounded(const std::vector<float> &v) {
  return from_bf16(to_bf16(v));
}

template <class T> DeviceBuffer<T> upload(const std::vector<T> &v) {
  DeviceBuffer<T> d(v.size(), "test upload");
  check(cudaMemcpy(d.get(), v.data(), d.bytes(), cudaMemcpyHostToDevice),
        "test upload");
  return d;
}
template <class T> DeviceBuffer<T> poisoned(size_t n) {
  DeviceBuffer<T> d(n, "test buffer");
  check(cudaMemset(d.get(), 0xff, d.bytes()), "poisoning");
  return d;
}
template <class T> std::vector<T> download(const DeviceBuffer<T> &d) {
  check(cudaDeviceSynchronize(), "test kernels");
  std::vector<T> v(d.size());
  check(cudaMemcpy(v.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost),
        "test download");
  return v;
}

/// Largest |a − b| / (1 + |b|) (NaN counts as infinite).
double max_rel_err(const std::vector<float> &a, const std::vector<float> &b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = std::abs(double(a[i]) - b[i]) / (1 + std::abs(b[i]));
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  return worst;
}

// Two bf16 roundings of values around 1 (the kernel's and the
// comparison's): 2 · 2^-8 relative, with room for fp32 summation order.
constexpr double kBf16Tol = 1.6e-2;
} // namespace

TEST(CudaKernels, EmbeddingRowsWidenToFp32) {
  const int vocab = 300, hidden = 96, n = 17;
  const auto table = to_bf16(randn(size_t(vocab) * hidden));
  std::vector<int32_t> ids(n);
  for (int32_t &id : ids)
    id = int32_t(rng()() % vocab);
  auto d_table = upload(table);
  auto d_ids = upload(ids);
  auto d_x = poisoned<float>(size_t(n) * hidden);
  launch_embedding(d_table.get(), vocab, hidden, d_ids.get(), n, d_x.get(), 0);
  const auto x = download(d_x);
  for (int t = 0; t < n; ++t)
    for (int k = 0; k < hidden; ++k)
      ASSERT_EQ(x[size_t(t) * hidden + k],
                bf16_to_f32(table[size_t(ids[t]) * hidden + k]));
}

TEST(CudaKernels, AddRmsNormMatchesTheCpu) {
  for (int dim : {48, 1024, 2560}) {
    const int rows = 9;
    const auto residual = randn(size_t(rows) * dim);
    const auto delta = rounded(randn(size_t(rows) * dim, 0.5f));
    const auto weight = randn(size_t(dim), 0.3f);
    auto d_res = upload(residual);
    auto d_delta = upload(to_bf16(delta));
    auto d_w = upload(weight);
    auto d_out = poisoned<uint16_t>(size_t(rows) * dim);
    launch_add_rms_norm(d_res.get(), d_delta.get(), d_w.get(), nullptr, rows,
                        dim, 1e-6f, d_out.get(), 0);
    std::vector<float> cpu_res = residual, cpu_out(residual.size());
    add_rms_norm(cpu_res.data(), delta.data(), weight.data(), cpu_out.data(),
                 rows, dim, 1e-6f);
    EXPECT_LT(max_rel_err(download(d_res), cpu_res), 1e-6) << dim;
    EXPECT_LT(max_rel_err(from_bf16(download(d_out)), cpu_out), kBf16Tol)
        << dim;

    // Gathered rows (the final norm): only those rows, in the given order.
    const std::vector<int32_t> pick = {7, 2};
    auto d_rows = upload(pick);
    auto d_res2 = upload(residual);
    auto d_out2 = poisoned<uint16_t>(2 * size_t(dim));
    launch_add_rms_norm(d_res2.get(), d_delta.get(), d_w.get(), d_rows.get(), 2,
                        dim, 1e-6f, d_out2.get(), 0);
    const auto out2 = from_bf16(download(d_out2));
    for (int r = 0; r < 2; ++r) {
      std::vector<float> got(out2.begin() + r * dim,
                             out2.begin() + (r + 1) * dim);
      std::vector<float> want(cpu_out.begin() + pick[r] * dim,
                              cpu_out.begin() + (pick[r] + 1) * dim);
      EXPECT_LT(max_rel_err(got, want), kBf16Tol) << dim << " row " << r;
    }
  }
}

TEST(CudaKernels, QkNormRopeStoreMatchesTheCpu) {
  struct Shape {
    int heads, kv_heads, hd;
  };
  for (Shape s : {Shape{16, 8, 128}, Shape{4, 1, 16}, Shape{8, 4, 64}}) {
    const int n = 11, block = 4, blocks = 8;
    const int width = (s.heads + 2 * s.kv_heads) * s.hd;
    const auto qkv = rounded(randn(size_t(n) * width));
    const auto qn = randn(size_t(s.hd), 0.3f), kn = randn(size_t(s.hd), 0.3f);
    RopeTable rope(s.hd, 1e6, 64);
    std::vector<int32_t> pos(n), slots(n);
    for (int t = 0; t < n; ++t) {
      pos[t] = int32_t(rng()() % 64);
      slots[t] = t == 3 ? -1 : (t * 5 + 1) % (block * blocks); // 3: skipped
    }
    auto d_qkv = upload(to_bf16(qkv));
    auto d_qn = upload(qn), d_kn = upload(kn);
    std::vector<float> cos_t(rope.cos(0), rope.cos(0) + 64 * s.hd / 2);
    std::vector<float> sin_t(rope.sin(0), rope.sin(0) + 64 * s.hd / 2);
    auto d_cos = upload(cos_t), d_sin = upload(sin_t);
    auto d_pos = upload(pos), d_slots = upload(slots);
    auto d_q = poisoned<uint16_t>(size_t(n) * s.heads * s.hd);
    const size_t cache = size_t(block) * blocks * s.kv_heads * s.hd;
    auto d_k = poisoned<uint16_t>(cache), d_v = poisoned<uint16_t>(cache);
    launch_qk_norm_rope_store(d_qkv.get(), n, {s.heads, s.kv_heads, s.hd},
                              d_qn.get(), d_kn.get(), 1e-6f, d_cos.get(),
                              d_sin.get(), d_pos.get(), d_slots.get(),
                              d_q.get(), d_k.get(), d_v.get(), 0);
    // CPU: per-head norm, then RoPE, on q and k split out of qkv.
    std::vector<float> q(size_t(n) * s.heads * s.hd),
        k(size_t(n) * s.kv_heads * s.hd), v(k.size());
    for (int t = 0; t < n; ++t) {
      const float *row = &qkv[size_t(t) * width];
      std::copy(row, row + s.heads * s.hd, &q[size_t(t) * s.heads * s.hd]);
      std::copy(row + s.heads * s.hd, row + (s.heads + s.kv_heads) * s.hd,
                &k[size_t(t) * s.kv_heads * s.hd]);
      std::copy(row + (s.heads + s.kv_heads) * s.hd, row + width,
                &v[size_t(t) * s.kv_heads * s.hd]);
    }
    rms_norm(q.data(), qn.data(), q.data(), int64_t(n) * s.heads, s.hd, 1e-6f);
    rms_norm(k.data(), kn.data(), k.data(), int64_t(n) * s.kv_heads, s.hd,
             1e-6f);
    engine::rope(rope, pos.data(), n, q.data(), s.heads);
    engine::rope(rope, pos.data(), n, k.data(), s.kv_heads);
    EXPECT_LT(max_rel_err(from_bf16(download(d_q)), q), kBf16Tol) << s.hd;
    const auto kc = download(d_k), vc = download(d_v);
    const size_t row = size_t(s.kv_heads) * s.hd;
    std::vector<bool> written(size_t(block) * blocks, false);
    for (int t = 0; t < n; ++t) {
      if (slots[t] < 0)
        continue;
      written[size_t(slots[t])] = true;
      std::vector<float> got_k(row), got_v(row), want_k(row), want_v(row);
      for (size_t i = 0; i < row; ++i) {
        got_k[i] = bf16_to_f32(kc[size_t(slots[t]) * row + i]);
        got_v[i] = bf16_to_f32(vc[size_t(slots[t]) * row + i]);
        want_k[i] = k[size_t(t) * row + i];
        want_v[i] = v[size_t(t) * row + i];
      }
      EXPECT_LT(max_rel_err(got_k, want_k), kBf16Tol) << s.hd;
      EXPECT_EQ(got_v, want_v) << s.hd; // v is copied as it is
    }
    // Slots no token maps to keep their poison.
    for (size_t sl = 0; sl < written.size(); ++sl)
      if (!written[sl])
        for (size_t i = 0; i < row; ++i)
          ASSERT_EQ(kc[sl * row + i], 0xffff) << "slot " << sl;
  }
}

TEST(CudaKernels, SiluMulMatchesTheCpu) {
  const int n = 7, dim = 3072 + 5;
  const auto gate = rounded(randn(size_t(n) * dim, 2.f));
  const auto up = rounded(randn(size_t(n) * dim));
  std::vector<float> fused(size_t(n) * 2 * dim);
  for (int t = 0; t < n; ++t) {
    std::copy(&gate[size_t(t) * dim], &gate[size_t(t + 1) * dim],
              &fused[size_t(t) * 2 * dim]);
    std::copy(&up[size_t(t) * dim], &up[size_t(t + 1) * dim],
              &fused[size_t(t) * 2 * dim + dim]);
  }
  auto d_in = upload(to_bf16(fused));
  auto d_out = poisoned<uint16_t>(size_t(n) * dim);
  launch_silu_mul(d_in.get(), n, dim, d_out.get(), 0);
  std::vector<float> want(size_t(n) * dim);
  silu_mul(gate.data(), up.data(), want.data(), n, dim);
  EXPECT_LT(max_rel_err(from_bf16(download(d_out)), want), kBf16Tol);
}

namespace {
/// A paged bf16 cache with blocks handed out in a shuffled order, and
/// sequences with the given query and context lengths.
struct AttentionCase {
  int heads, kv_heads, hd, block;
  std::vector<int> q_lens, ctx_lens;

  void run(bool decode) const {
    const int seqs = int(q_lens.size());
    int blocks_needed = 0, width = 0;
    for (int c : ctx_lens) {
      blocks_needed += (c + block - 1) / block;
      width = std::max(width, (c + block - 1) / block);
    }
    width = std::max(width, 1);
    const int num_blocks = blocks_needed + 3;
    std::vector<int32_t> order(static_cast<size_t>(num_blocks));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng());
    std::vector<int32_t> tables(size_t(seqs) * width, -1), cu{0};
    int next = 0;
    for (int s = 0; s < seqs; ++s) {
      for (int b = 0; b < (ctx_lens[s] + block - 1) / block; ++b)
        tables[size_t(s) * width + b] = order[size_t(next++)];
      cu.push_back(cu.back() + q_lens[s]);
    }
    const size_t cache = size_t(num_blocks) * block * kv_heads * hd;
    const auto k = rounded(randn(cache)), v = rounded(randn(cache));
    const int total_q = cu.back();
    const auto q = rounded(randn(size_t(total_q) * heads * hd));

    ThreadPool pool(2);
    const auto kb = to_bf16(k), vb = to_bf16(v);
    PagedKv cpu_kv{const_cast<uint16_t *>(kb.data()),
                   const_cast<uint16_t *>(vb.data()),
                   block,
                   kv_heads,
                   hd,
                   DType::BF16,
                   num_blocks};
    AttentionBatch ab{seqs, cu.data(), ctx_lens.data(), tables.data(), width};
    const float scale = 1.f / std::sqrt(float(hd));
    std::vector<float> want(size_t(total_q) * heads * hd);
    paged_attention(pool, q.data(), heads, ab, cpu_kv, scale, want.data());

    auto d_k = upload(kb), d_v = upload(vb);
    auto d_q = upload(to_bf16(q));
    auto d_tables = upload(tables), d_cu = upload(cu), d_ctx = upload(ctx_lens);
    auto d_out = poisoned<uint16_t>(want.size());
    const PagedKvView view{d_k.get(), d_v.get(),      block, kv_heads,
                           hd,        d_tables.get(), width, d_ctx.get()};
    const int max_ctx = *std::max_element(ctx_lens.begin(), ctx_lens.end());
    if (decode) {
      auto ws = poisoned<float>(
          size_t(decode_attention_workspace(seqs, heads, hd, max_ctx)));
      auto tickets = upload(std::vector<int>(size_t(seqs) * kv_heads, 0));
      // Twice: the tickets must be left ready for the next launch.
      for (int round = 0; round < 2; ++round)
        launch_decode_attention(d_q.get(), heads, seqs, max_ctx, view, scale,
                                ws.get(), tickets.get(), d_out.get(), 0);
      for (int t : download(tickets))
        ASSERT_EQ(t, 0);
    } else {
      launch_prefill_attention(d_q.get(), heads, d_cu.get(), seqs,
                               *std::max_element(q_lens.begin(), q_lens.end()),
                               view, scale, d_out.get(), 0);
    }
    check_launch("attention");
    const std::vector<uint16_t> got = download(d_out);
    EXPECT_LT(max_rel_err(from_bf16(got), want), kBf16Tol)
        << (decode ? "decode" : "prefill") << " heads " << heads << "/"
        << kv_heads << " hd " << hd;
    if (decode)
      return;
    // The other ways of staging the tiles (attention_options.h): the same
    // fragments in the same registers, so the same bits.
    for (PrefillStaging staging :
         {PrefillStaging::ldmatrix, PrefillStaging::async}) {
      auto d_other = poisoned<uint16_t>(want.size());
      launch_prefill_attention(d_q.get(), heads, d_cu.get(), seqs,
                               *std::max_element(q_lens.begin(), q_lens.end()),
                               view, scale, d_other.get(), 0, staging);
      check_launch("attention staged another way");
      EXPECT_EQ(download(d_other), got)
          << (staging == PrefillStaging::async ? "async" : "ldmatrix")
          << ", heads " << heads << "/" << kv_heads << " hd " << hd;
    }
  }
};
} // namespace

TEST(CudaKernels, PrefillAttentionMatchesTheCpu) {
  // Whole prompts, cached prefixes (queries fewer than the context), GQA
  // groups 1, 2 and 4, every head size, blocks smaller than a key chunk.
  AttentionCase{16, 8, 128, 256, {100, 37, 1}, {100, 300, 1}}.run(false);
  AttentionCase{16, 8, 128, 16, {64, 5}, {64, 500}}.run(false);
  AttentionCase{4, 1, 16, 4, {33, 12}, {33, 40}}.run(false);
  AttentionCase{4, 4, 32, 8, {70}, {70}}.run(false);
  AttentionCase{8, 2, 64, 256, {129, 3}, {129, 3}}.run(false);
}

TEST(CudaKernels, DecodeAttentionMatchesTheCpu) {
  // One query each; contexts across several 256-key partitions.
  AttentionCase{16, 8, 128, 256, {1, 1, 1, 1}, {1, 255, 257, 1500}}.run(true);
  AttentionCase{16, 8, 128, 16, {1, 1}, {700, 33}}.run(true);
  AttentionCase{4, 1, 16, 4, {1, 1}, {9, 600}}.run(true);
  AttentionCase{32, 2, 64, 8, {1}, {513}}.run(true);
  AttentionCase{4, 4, 32, 256, {1, 1}, {2, 1024}}.run(true);
  // Large batches take the two-pass kernel and its merge.
  std::vector<int> ones(24, 1), contexts;
  for (int i = 0; i < 24; ++i)
    contexts.push_back(1 + int(rng()() % 1400));
  AttentionCase{16, 8, 128, 256, ones, contexts}.run(true);
  AttentionCase{8, 2, 64, 16, ones, contexts}.run(true);
}

TEST(CudaKernels, DecodeAttentionGivesZeroForGraphPadding) {
  const int heads = 4, kv_heads = 2, hd = 64;
  std::vector<int32_t> tables = {-1}, ctx = {0};
  auto d_tables = upload(tables), d_ctx = upload(ctx);
  auto d_q = upload(to_bf16(randn(size_t(heads) * hd)));
  auto d_out = poisoned<uint16_t>(size_t(heads) * hd);
  auto ws =
      poisoned<float>(size_t(decode_attention_workspace(1, heads, hd, 512)));
  auto tickets = upload(std::vector<int>(kv_heads, 0));
  const PagedKvView view{nullptr, nullptr,        16, kv_heads,
                         hd,      d_tables.get(), 1,  d_ctx.get()};
  launch_decode_attention(d_q.get(), heads, 1, 512, view, 0.1f, ws.get(),
                          tickets.get(), d_out.get(), 0);
  for (uint16_t x : download(d_out))
    ASSERT_EQ(x, 0);
}

TEST(CudaKernels, DecodeAttentionWithTheQkNormFoldedInGivesTheSameBits) {
  // Each case: query and KV heads, head size, block size and the contexts
  // (a context of 0 is graph padding: slot −1, nothing stored). The new
  // token is each sequence's last position; from 16 sequences on the fold
  // falls back to the separate kernel before the two-pass attention.
  struct Case {
    int heads, kv_heads, hd, block;
    std::vector<int> ctx;
  };
  std::vector<int> many;
  for (int i = 0; i < 20; ++i)
    many.push_back(1 + int(rng()() % 900));
  for (const Case &c :
       {Case{16, 8, 128, 256, {1}}, Case{16, 8, 128, 16, {1, 300, 700}},
        Case{8, 2, 64, 8, {5, 0, 513}}, Case{4, 4, 32, 256, {2, 1024}},
        Case{16, 1, 16, 4, {9, 600}}, Case{32, 2, 128, 256, {257}},
        Case{64, 8, 128, 16, {1, 257}}, Case{16, 8, 128, 16, many}}) {
    const int seqs = int(c.ctx.size());
    const int max_ctx = *std::max_element(c.ctx.begin(), c.ctx.end());
    const int width = std::max(1, (max_ctx + c.block - 1) / c.block);
    int blocks_needed = 0;
    for (int x : c.ctx)
      blocks_needed += (x + c.block - 1) / c.block;
    const int num_blocks = blocks_needed + 2;
    std::vector<int32_t> order(static_cast<size_t>(num_blocks));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng());
    std::vector<int32_t> tables(size_t(seqs) * width, -1),
        pos(static_cast<size_t>(seqs)), slots(static_cast<size_t>(seqs));
    int next = 0;
    for (int sq = 0; sq < seqs; ++sq) {
      const int x = c.ctx[size_t(sq)];
      for (int b = 0; b < (x + c.block - 1) / c.block; ++b)
        tables[size_t(sq) * width + b] = order[size_t(next++)];
      pos[size_t(sq)] = x ? x - 1 : 0;
      slots[size_t(sq)] =
          x ? tables[size_t(sq) * width + (x - 1) / c.block] * c.block +
                  (x - 1) % c.block
            : -1;
    }
    const int qkv_width = (c.heads + 2 * c.kv_heads) * c.hd;
    const auto qkv = to_bf16(randn(size_t(seqs) * qkv_width));
    const auto qn = randn(size_t(c.hd), 0.3f), kn = randn(size_t(c.hd), 0.3f);
    RopeTable rope(c.hd, 1e6, max_ctx + 1);
    std::vector<float> cos_t(rope.cos(0),
                             rope.cos(0) + size_t(max_ctx + 1) * c.hd / 2);
    std::vector<float> sin_t(rope.sin(0),
                             rope.sin(0) + size_t(max_ctx + 1) * c.hd / 2);
    const size_t cache = size_t(num_blocks) * c.block * c.kv_heads * c.hd;
    const auto k0 = to_bf16(randn(cache)), v0 = to_bf16(randn(cache));
    auto d_qkv = upload(qkv);
    auto d_qn = upload(qn), d_kn = upload(kn);
    auto d_cos = upload(cos_t), d_sin = upload(sin_t);
    auto d_pos = upload(pos), d_slots = upload(slots);
    auto d_tables = upload(tables), d_ctx = upload(c.ctx);
    const float scale = 1.f / std::sqrt(float(c.hd));
    const QkvLayout layout{c.heads, c.kv_heads, c.hd};
    struct Run {
      DeviceBuffer<uint16_t> k, v, q, out;
    };
    auto run = [&](bool fold) {
      Run r{upload(k0), upload(v0),
            poisoned<uint16_t>(size_t(seqs) * c.heads * c.hd),
            poisoned<uint16_t>(size_t(seqs) * c.heads * c.hd)};
      auto ws = poisoned<float>(
          size_t(decode_attention_workspace(seqs, c.heads, c.hd, max_ctx)));
      auto tickets = upload(std::vector<int>(size_t(seqs) * c.kv_heads, 0));
      const PagedKvView view{r.k.get(), r.v.get(),      c.block, c.kv_heads,
                             c.hd,      d_tables.get(), width,   d_ctx.get()};
      const QkNormRope qk{d_qkv.get(),   layout,      d_qn.get(),  d_kn.get(),
                          1e-6f,         d_cos.get(), d_sin.get(), d_pos.get(),
                          d_slots.get(), r.q.get(),   r.k.get(),   r.v.get()};
      if (!fold)
        launch_qk_norm_rope_store(qk.qkv, seqs, layout, qk.q_norm, qk.k_norm,
                                  qk.eps, qk.rope_cos, qk.rope_sin,
                                  qk.positions, qk.slot_mapping, qk.q_out,
                                  qk.k_cache, qk.v_cache, 0);
      launch_decode_attention(fold ? nullptr : r.q.get(), c.heads, seqs,
                              max_ctx, view, scale, ws.get(), tickets.get(),
                              r.out.get(), 0, fold ? &qk : nullptr);
      check_launch("decode attention");
      return r;
    };
    const Run plain = run(false), folded = run(true);
    const std::string what =
        "heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) +
        " hd " + std::to_string(c.hd) + " seqs " + std::to_string(seqs);
    EXPECT_EQ(download(folded.out), download(plain.out)) << what;
    EXPECT_EQ(download(folded.k), download(plain.k)) << what;
    EXPECT_EQ(download(folded.v), download(plain.v)) << what;
    if (seqs >= kDecodeFoldMaxSeqs) // the fallback writes q where asked
      EXPECT_EQ(download(folded.q), download(plain.q)) << what;
  }
}

namespace {
struct SampleRow {
  std::vector<float> logits;
  float temperature, top_p, uniform;
  int top_k;
};

/// The tokens launch_sample gives, with a block per row or split
/// (split_sampling.h); the split form is launched `launches` times on one
/// workspace (each launch must leave its tickets zeroed for the next).
std::vector<int32_t> sample_on_gpu(const std::vector<SampleRow> &rows,
                                   bool split = false, int launches = 1) {
  const int n = int(rows.size()), vocab = int(rows[0].logits.size());
  std::vector<float> logits, t, p, u;
  std::vector<int32_t> k;
  for (const SampleRow &r : rows) {
    logits.insert(logits.end(), r.logits.begin(), r.logits.end());
    t.push_back(r.temperature);
    p.push_back(r.top_p);
    u.push_back(r.uniform);
    k.push_back(r.top_k);
  }
  auto d_logits = upload(logits);
  auto d_t = upload(t), d_p = upload(p), d_u = upload(u);
  auto d_k = upload(k);
  auto d_tokens = poisoned<int32_t>(size_t(n));
  const SamplingView view{d_t.get(), d_p.get(), d_u.get(), d_k.get()};
  if (!split) {
    launch_sample(d_logits.get(), n, vocab, view, d_tokens.get(), 0);
    check_launch("sampling");
    return download(d_tokens);
  }
  auto scratch = poisoned<float>(size_t(sample_workspace_floats(n)));
  auto tickets = upload(std::vector<int>(size_t(n), 0));
  SampleWorkspace ws{scratch.get(), tickets.get(), 0};
  check(cudaDeviceGetAttribute(&ws.sms, cudaDevAttrMultiProcessorCount, 0),
        "multiprocessors");
  std::vector<int32_t> first;
  for (int i = 0; i < launches; ++i) {
    // A row with a top-k or top-p cut leaves scratch values in its logits.
    check(cudaMemcpy(d_logits.get(), logits.data(), d_logits.bytes(),
                     cudaMemcpyHostToDevice),
          "uploading the logits again");
    check(cudaMemset(d_tokens.get(), 0xff, d_tokens.bytes()), "poisoning");
    launch_sample(d_logits.get(), n, vocab, view, d_tokens.get(), 0, &ws);
    check_launch("split sampling");
    const std::vector<int32_t> got = download(d_tokens);
    if (i == 0)
      first = got;
    else
      EXPECT_EQ(got, first) << "launch " << i + 1 << " on the same workspace";
  }
  for (int t : download(tickets))
    EXPECT_EQ(t, 0) << "a ticket left set";
  return first;
}

/// The token a uniform u selects from the kept set, in vocabulary order, in
/// double precision; -1 when u lies within `margin` of a boundary between
/// two tokens (float rounding may then pick either).
int32_t expected_draw(const SampleRow &r, double margin) {
  const size_t n = r.logits.size();
  std::vector<double> e(n);
  double mx = -INFINITY;
  for (float x : r.logits)
    mx = std::max(mx, double(x));
  for (size_t i = 0; i < n; ++i)
    e[i] = std::exp((r.logits[i] - mx) / r.temperature);
  std::vector<double> sorted = e;
  std::sort(sorted.rbegin(), sorted.rend());
  double cut = 0;
  if (r.top_k > 0 && size_t(r.top_k) < n)
    cut = sorted[size_t(r.top_k) - 1];
  if (r.top_p < 1) {
    double z = 0;
    for (double x : sorted)
      if (x >= cut)
        z += x;
    double run = 0;
    for (double x : sorted) {
      run += x;
      if (run >= r.top_p * z) {
        cut = std::max(cut, x);
        break;
      }
    }
  }
  double total = 0;
  for (double x : e)
    if (x >= cut)
      total += x;
  const double target = r.uniform * total;
  double run = 0;
  for (size_t i = 0; i < n; ++i) {
    if (e[i] < cut)
      continue;
    if (std::abs(run - target) < margin * total ||
        std::abs(run + e[i] - target) < margin * total)
      return -1;
    run += e[i];
    if (run > target)
      return int32_t(i);
  }
  return -1;
}
} // namespace

TEST(CudaKernels, GreedyIsTheCpusArgmax) {
  const int vocab = 151936;
  std::vector<SampleRow> rows;
  for (int i = 0; i < 6; ++i)
    rows.push_back({randn(size_t(vocab), 3.f), 0.f, 1.f, 0.f, 0});
  rows[1].logits[77] = rows[1].logits[90000] = 50.f; // a tie: lowest index
  rows[2].logits.assign(size_t(vocab), NAN);         // all NaN: 0
  rows[3].logits[5] = NAN;
  rows[3].logits[6] = 60.f; // NaN skipped
  rows[4].temperature = 0.7f;
  rows[4].logits[123] = INFINITY; // infinite maximum: argmax
  rows[5].logits[151935] = 40.f;  // the last logit, in the last block
  for (bool split : {false, true}) {
    const auto got = sample_on_gpu(rows, split, 2);
    for (size_t i = 0; i < rows.size(); ++i)
      EXPECT_EQ(got[i], Sampler::argmax(rows[i].logits.data(), vocab))
          << i << (split ? " split" : "");
  }
  // A tie across the split form's blocks and segments: the lowest index.
  std::vector<SampleRow> tie = {{randn(size_t(vocab), 3.f), 0.f, 1.f, 0.f, 0}};
  for (int at : {150000, 4749, 4748, 70001})
    tie[0].logits[size_t(at)] = 45.f;
  EXPECT_EQ(sample_on_gpu(tie, true)[0], 4748);
  // A vocabulary smaller than a block's threads, and one not a multiple of
  // anything.
  for (int v : {5, 1000, 40961}) {
    std::vector<SampleRow> small = {{randn(size_t(v), 3.f), 0.f, 1.f, 0.f, 0}};
    EXPECT_EQ(sample_on_gpu(small, true)[0],
              Sampler::argmax(small[0].logits.data(), v))
        << v;
  }
}

TEST(CudaKernels, DrawsFollowTheKeptDistributionInVocabularyOrder) {
  const int vocab = 151936;
  std::vector<SampleRow> rows;
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  for (int i = 0; i < 48; ++i) {
    SampleRow r{randn(size_t(vocab), 2.f), 0.6f, 1.f, uni(rng()), 0};
    if (i % 4 == 1)
      r.top_k = 1 + int(rng()() % 50);
    if (i % 4 == 2)
      r.top_p = 0.5f + 0.45f * uni(rng());
    if (i % 4 == 3) {
      r.top_k = 20;
      r.top_p = 0.8f;
      r.temperature = 1.3f;
    }
    rows.push_back(std::move(r));
  }
  rows[5].top_k = 1; // top_k 1 is greedy whatever the draw
  // Uniforms at the ends of the range.
  rows[8].uniform = 0.f;
  rows[12].uniform = std::nextafter(1.f, 0.f);
  for (bool split : {false, true}) {
    const auto got = sample_on_gpu(rows, split, 2);
    int checked = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const int32_t want = expected_draw(rows[i], 1e-5);
      if (want < 0)
        continue;
      ++checked;
      EXPECT_EQ(got[i], want)
          << "row " << i << " top_k " << rows[i].top_k << " top_p "
          << rows[i].top_p << (split ? " split" : "");
    }
    EXPECT_EQ(got[5], Sampler::argmax(rows[5].logits.data(), vocab));
    EXPECT_GE(checked, 40);
    // The same inputs give the same tokens.
    EXPECT_EQ(sample_on_gpu(rows, split), got);
  }
  // The split form at batch 1 (the most blocks a row gets), across the
  // range of uniforms: every token from the same float64 inverse CDF.
  int checked = 0;
  for (int i = 0; i < 64; ++i) {
    SampleRow r{randn(size_t(vocab), 2.f), 0.6f, 1.f, (i + 0.5f) / 64, 0};
    const int32_t want = expected_draw(r, 1e-5);
    const int32_t got = sample_on_gpu({r}, true)[0];
    if (want < 0)
      continue;
    ++checked;
    EXPECT_EQ(got, want) << "uniform " << r.uniform;
  }
  // About 11 of the 64 uniforms land within the margin of a boundary
  // between two of these rows' many tiny tokens (a float64 simulation of
  // such rows: 8 to 12 of 64 in six trials).
  EXPECT_GE(checked, 44);
}

TEST(CudaKernels, DrawFrequenciesMatchTheProbabilities) {
  // A small vocabulary with known probabilities and many uniforms: the
  // frequencies must follow softmax(x / T) within sampling error.
  const std::vector<float> x = {0.f, 1.f, 2.f, -1.f, 0.5f};
  const float T = 0.8f;
  std::vector<SampleRow> rows;
  const int n = 20000;
  for (int i = 0; i < n; ++i)
    rows.push_back({x, T, 1.f, (float(i) + 0.5f) / n, 0});
  std::vector<double> p(x.size());
  double z = 0;
  for (size_t i = 0; i < x.size(); ++i)
    z += p[i] = std::exp(x[i] / T);
  for (bool split : {false, true}) {
    const auto got = sample_on_gpu(rows, split);
    std::vector<int> count(x.size());
    for (int32_t t : got) {
      ASSERT_GE(t, 0);
      ASSERT_LT(t, int(x.size()));
      ++count[size_t(t)];
    }
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(count[i] / double(n), p[i] / z, 2e-4)
          << i << (split ? " split" : "");
  }
}

TEST(CudaKernels, SplitDrawFrequenciesMatchTheProbabilitiesAcrossBlocks) {
  // 40,960 logits: at batch 1, 32 blocks of 1,280, each in 32 segments of
  // 40. Ten tokens in different blocks and segments (two side by side
  // across a block's edge) carry the mass in known shares; every other
  // logit is far below them.
  const int vocab = 40960;
  std::vector<float> x(size_t(vocab), -30.f);
  const std::vector<int> at = {3,     130,   3839,  3840,  9000,
                               20479, 20480, 30001, 38000, 40959};
  for (size_t i = 0; i < at.size(); ++i)
    x[size_t(at[i])] = 0.25f * float(i);
  const float T = 0.7f;
  const int n = 2000;
  std::vector<double> p(at.size());
  double z = 0;
  for (size_t i = 0; i < at.size(); ++i)
    z += p[i] = std::exp(x[size_t(at[i])] / T);
  z += (vocab - double(at.size())) * std::exp(-30.0 / T);
  std::vector<int> count(at.size());
  for (int i = 0; i < n; ++i) {
    const SampleRow r{x, T, 1.f, (float(i) + 0.5f) / n, 0};
    const int32_t t = sample_on_gpu({r}, true)[0];
    const auto it = std::find(at.begin(), at.end(), t);
    ASSERT_NE(it, at.end()) << "token " << t;
    ++count[size_t(it - at.begin())];
  }
  for (size_t i = 0; i < at.size(); ++i)
    EXPECT_NEAR(count[i] / double(n), p[i] / z, 1.5e-3) << at[i];
}

TEST(CudaKernels, GemvMatchesAFloat64Product) {
  struct Shape {
    int rows, cols;
  };
  for (Shape sh :
       {Shape{1003, 1024}, Shape{6144, 1024}, Shape{96, 3072}, Shape{77, 48},
        // Fewer rows than a group of warps takes at 4 rows per group.
        Shape{3, 1024},
        // Past kSplitBelowRows (a warp a row, four rows a block), the last
        // block short: as the lm_head.
        Shape{16387, 64}}) {
    for (int n = 1; n <= kMaxGemvRows; ++n) {
      ASSERT_TRUE(gemv_supports(n, sh.cols));
      const auto w = rounded(randn(size_t(sh.rows) * sh.cols, 0.05f));
      const auto x = rounded(randn(size_t(n) * sh.cols));
      auto d_w = upload(to_bf16(w)), d_x = upload(to_bf16(x));
      std::vector<float> want(size_t(n) * sh.rows);
      for (int i = 0; i < n; ++i)
        for (int r = 0; r < sh.rows; ++r) {
          double s = 0;
          for (int c = 0; c < sh.cols; ++c)
            s +=
                double(x[size_t(i) * sh.cols + c]) * w[size_t(r) * sh.cols + c];
          want[size_t(i) * sh.rows + r] = float(s);
        }
      // Every way of reading the weights (gemv_options.h): the same
      // result, no prefetch past the matrix, every row written.
      for (GemvOptions o :
           {GemvOptions{false, 1}, GemvOptions{true, 1}, GemvOptions{false, 2},
            GemvOptions{true, 4}, GemvOptions{false, 4}}) {
        auto d_y32 = poisoned<float>(want.size());
        launch_gemv(d_w.get(), sh.rows, sh.cols, d_x.get(), n, d_y32.get(),
                    true, 0, o);
        check_launch("gemv");
        EXPECT_LT(max_rel_err(download(d_y32), want), 1e-4)
            << sh.rows << "x" << sh.cols << " n " << n << " prefetch "
            << o.prefetch << " rows per group " << o.rows_per_group;
        auto d_y16 = poisoned<uint16_t>(want.size());
        launch_gemv(d_w.get(), sh.rows, sh.cols, d_x.get(), n, d_y16.get(),
                    false, 0, o);
        EXPECT_LT(max_rel_err(from_bf16(download(d_y16)), want), 8e-3)
            << sh.rows << "x" << sh.cols << " n " << n << " prefetch "
            << o.prefetch << " rows per group " << o.rows_per_group;
      }
    }
  }
  EXPECT_FALSE(gemv_supports(5, 1024));
  EXPECT_FALSE(gemv_supports(1, 1020)); // not a multiple of 8
}

TEST(CudaKernels, GemvWithSwigluEqualsSiluMulThenGemv) {
  const int rows = 1024, cols = 3072;
  for (int n = 1; n <= kMaxGemvRows; ++n) {
    const auto w = to_bf16(randn(size_t(rows) * cols, 0.03f));
    const auto gate_up = to_bf16(randn(size_t(n) * 2 * cols, 2.f));
    auto d_w = upload(w), d_gu = upload(gate_up);
    auto d_act = poisoned<uint16_t>(size_t(n) * cols);
    auto d_want = poisoned<uint16_t>(size_t(n) * rows);
    auto d_got = poisoned<uint16_t>(size_t(n) * rows);
    launch_silu_mul(d_gu.get(), n, cols, d_act.get(), 0);
    launch_gemv(d_w.get(), rows, cols, d_act.get(), n, d_want.get(), false, 0);
    launch_gemv_swiglu(d_w.get(), rows, cols, d_gu.get(), n, d_got.get(), 0);
    check_launch("gemv with swiglu");
    // The same bf16 activations in the same order: the same bits.
    EXPECT_EQ(download(d_got), download(d_want)) << n;
    // Each lane sums its chunks in the same order however many rows its
    // group takes: the same bits again.
    for (GemvOptions o :
         {GemvOptions{true, 1}, GemvOptions{false, 2}, GemvOptions{true, 4}}) {
      auto d_other = poisoned<uint16_t>(size_t(n) * rows);
      launch_gemv_swiglu(d_w.get(), rows, cols, d_gu.get(), n, d_other.get(), 0,
                         o);
      check_launch("gemv with swiglu");
      EXPECT_EQ(download(d_other), download(d_want))
          << n << " prefetch " << o.prefetch << " rows per group "
          << o.rows_per_group;
    }
  }
}
