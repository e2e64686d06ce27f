// bench/engine/kernels_bench.cpp - the thread pool's dispatch round trip,
// paged attention at decode and prefill (fp32 and bf16 caches), and the
// element-wise ops, on Qwen3-0.6B shapes (16 query heads, 8 KV heads of 128).
// Threads: ENGINE_BENCH_THREADS (default 2).
#include "engine/cpu/attention.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/ops.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace engine;

int bench_threads() {
  const char *v = std::getenv("ENGINE_BENCH_THREADS");
  return v && *v ? std::atoi(v) : 2;
}

ThreadPool &pool() {
  static ThreadPool p(bench_threads());
  return p;
}

// One empty job on every thread: the fixed cost of each parallel kernel.
void bm_pool_dispatch(benchmark::State &state) {
  ThreadPool &p = pool();
  p.run([](int, int) {});
  for (auto _ : state)
    p.run([](int, int) {});
}

// The same with a fresh pool whose workers always sleep between jobs: the
// cost of a futex wake-up, for comparison.
void bm_pool_dispatch_sleeping(benchmark::State &state) {
  ThreadPool p(bench_threads());
  p.set_spin_us(0);
  for (auto _ : state)
    p.run([](int, int) {});
}

constexpr int kHeads = 16, kKvHeads = 8, kHeadDim = 128, kBlock = 256;

// A batch of `seqs` sequences of `context` tokens each with `n_q` queries,
// blocks scattered over the pool as a long-running engine leaves them. A
// model's caches (all layers) are far larger than the last-level cache, so
// the pool holds enough copies of the batch's blocks to fill 1.5 GiB and each
// call reads the next copy (tables[copy]).
struct AttentionSetup {
  std::vector<float> kf, vf, q, out;
  std::vector<uint16_t> kb, vb;
  std::vector<int32_t> cu, lens;
  std::vector<std::vector<int32_t>> tables;
  PagedKv kv;
  AttentionBatch batch;
  int copies = 1, next = 0;

  AttentionSetup(int seqs, int context, int n_q, DType dtype) {
    int blocks_per_seq = (context + kBlock - 1) / kBlock;
    int blocks = seqs * blocks_per_seq;
    size_t block_elems = size_t(kBlock) * kKvHeads * kHeadDim;
    size_t copy_bytes = 2 * blocks * block_elems * dtype_size(dtype);
    copies = int(std::max<size_t>(2, (size_t(3) << 29) / copy_bytes));
    size_t elems = size_t(blocks) * copies * block_elems;
    // Values in [-1, 1) from a cheap hash: gigabytes are filled.
    auto value = [](size_t i) {
      return float(uint32_t(i * 2654435761u) >> 8) / float(1 << 23) - 1.0f;
    };
    if (dtype == DType::F32) {
      kf.resize(elems);
      vf.resize(elems);
      for (size_t i = 0; i < elems; ++i) {
        kf[i] = value(i);
        vf[i] = value(i + 7);
      }
    } else {
      kb.resize(elems);
      vb.resize(elems);
      for (size_t i = 0; i < elems; ++i) {
        kb[i] = f32_to_bf16(value(i));
        vb[i] = f32_to_bf16(value(i + 7));
      }
    }
    kv = {dtype == DType::F32 ? static_cast<void *>(kf.data()) : kb.data(),
          dtype == DType::F32 ? static_cast<void *>(vf.data()) : vb.data(),
          kBlock,
          kKvHeads,
          kHeadDim,
          dtype,
          int64_t(blocks) * copies};
    std::mt19937 rng(1);
    std::vector<int32_t> ids(static_cast<size_t>(blocks) * copies);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    for (int c = 0; c < copies; ++c)
      tables.emplace_back(ids.begin() + c * blocks,
                          ids.begin() + (c + 1) * blocks);
    cu = {0};
    for (int s = 0; s < seqs; ++s) {
      cu.push_back(cu.back() + n_q);
      lens.push_back(context);
    }
    q.resize(size_t(cu.back()) * kHeads * kHeadDim);
    for (size_t i = 0; i < q.size(); ++i)
      q[i] = value(i + 3);
    out.resize(q.size());
    batch = {seqs, cu.data(), lens.data(), nullptr, blocks_per_seq};
  }
  const AttentionBatch &next_batch() {
    batch.block_tables = tables[size_t(next++ % copies)].data();
    return batch;
  }
};

// Counters: bytes of keys and values read, and the flops of q·k and p·v.
void bm_attention(benchmark::State &state, int seqs, int context, int n_q,
                  DType dtype, bool bf16) {
  set_attention_bf16_min_rows(bf16 ? -1 : 0);
  AttentionSetup s(seqs, context, n_q, dtype);
  float scale = 1.0f / std::sqrt(float(kHeadDim));
  for (auto _ : state) {
    paged_attention(pool(), s.q.data(), kHeads, s.next_batch(), s.kv, scale,
                    s.out.data());
    benchmark::DoNotOptimize(s.out.data());
  }
  double kv_bytes =
      2.0 * seqs * context * kKvHeads * kHeadDim * double(dtype_size(dtype));
  // Query j sees context − n_q + j + 1 keys.
  double pairs = 0;
  for (int j = 0; j < n_q; ++j)
    pairs += context - n_q + j + 1;
  double flops = 4.0 * kHeadDim * kHeads * pairs * seqs;
  state.counters["GB/s"] = benchmark::Counter(
      kv_bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  set_attention_bf16_min_rows(-1);
}

void bm_rms_norm(benchmark::State &state, int64_t rows) {
  const int64_t dim = 1024;
  std::vector<float> x(size_t(rows * dim), 0.5f), w(size_t(dim), 1.0f),
      out(x.size());
  for (auto _ : state) {
    rms_norm(pool(), x.data(), w.data(), out.data(), rows, dim, 1e-6f);
    benchmark::DoNotOptimize(out.data());
  }
}

// The residual add fused into the norm that follows it, against the add as
// a plain loop on one thread followed by rms_norm.
void bm_add_rms_norm(benchmark::State &state, int64_t rows, bool fused) {
  const int64_t dim = 1024;
  std::vector<float> residual(size_t(rows * dim), 0.5f), x(residual.size()),
      w(size_t(dim), 1.0f), out(residual.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = (i % 2 ? 1e-3f : -1e-3f); // keeps the residual from drifting
  for (auto _ : state) {
    if (fused) {
      add_rms_norm(pool(), residual.data(), x.data(), w.data(), out.data(),
                   rows, dim, 1e-6f);
    } else {
      for (size_t i = 0; i < residual.size(); ++i)
        residual[i] += x[i];
      rms_norm(pool(), residual.data(), w.data(), out.data(), rows, dim, 1e-6f);
    }
    benchmark::DoNotOptimize(out.data());
  }
}

void bm_silu_mul(benchmark::State &state, int64_t rows) {
  const int64_t dim = 3072;
  std::vector<float> gu(size_t(rows * 2 * dim), 0.5f), out(size_t(rows * dim));
  for (auto _ : state) {
    silu_mul(pool(), gu.data(), out.data(), rows, dim);
    benchmark::DoNotOptimize(out.data());
  }
}

void bm_rope(benchmark::State &state, int64_t tokens) {
  RopeTable table(kHeadDim, 1e6, 4096);
  std::vector<float> q(size_t(tokens * kHeads * kHeadDim), 0.5f);
  std::vector<int32_t> pos(static_cast<size_t>(tokens));
  std::iota(pos.begin(), pos.end(), 0);
  for (auto _ : state) {
    rope(table, pos.data(), tokens, q.data(), kHeads);
    benchmark::DoNotOptimize(q.data());
  }
}

void bm_argmax(benchmark::State &state) {
  std::vector<float> logits(151936);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (float &f : logits)
    f = dist(rng);
  for (auto _ : state)
    benchmark::DoNotOptimize(argmax(logits.data(), int64_t(logits.size())));
}

void register_all() {
  benchmark::RegisterBenchmark("pool_dispatch", bm_pool_dispatch)
      ->UseRealTime();
  benchmark::RegisterBenchmark("pool_dispatch_sleeping",
                               bm_pool_dispatch_sleeping)
      ->UseRealTime();
  struct Case {
    const char *name;
    int seqs, context, n_q;
  };
  for (Case c : {Case{"decode/seqs:16/ctx:600", 16, 600, 1},
                 Case{"decode/seqs:16/ctx:1200", 16, 1200, 1},
                 Case{"decode/seqs:1/ctx:1024", 1, 1024, 1},
                 Case{"decode/seqs:1/ctx:4096", 1, 4096, 1},
                 Case{"prefill/seqs:1/tokens:512", 1, 512, 512}})
    for (DType dtype : {DType::F32, DType::BF16})
      for (bool bf16 : {true, false}) {
        // Only prefill tiles multiply in bf16 (AMX or AVX512-BF16);
        // "bf16:off" is the fp32 AVX-512 tile.
        if (!bf16 && (c.n_q == 1 || max_supported_isa() < Isa::Avx512Bf16))
          continue;
        std::string name = std::string("attention/") + c.name +
                           "/kv:" + std::string(dtype_name(dtype)) +
                           (bf16 ? "" : "/bf16:off");
        benchmark::RegisterBenchmark(name.c_str(), bm_attention, c.seqs,
                                     c.context, c.n_q, dtype, bf16)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
  for (int64_t rows : {1, 16, 512}) {
    std::string r = "/rows:" + std::to_string(rows);
    benchmark::RegisterBenchmark(("rms_norm/dim:1024" + r).c_str(), bm_rms_norm,
                                 rows)
        ->UseRealTime();
    for (bool fused : {true, false})
      benchmark::RegisterBenchmark(
          ("add_rms_norm/dim:1024" + r + (fused ? "/fused" : "/loop")).c_str(),
          bm_add_rms_norm, rows, fused)
          ->UseRealTime();
    benchmark::RegisterBenchmark(("silu_mul/dim:3072" + r).c_str(), bm_silu_mul,
                                 rows)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("rope/heads:16" + r).c_str(), bm_rope, rows)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("argmax/vocab:151936", bm_argmax);
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  std::fprintf(stderr, "%s\n", cpu_description(pool().size()).c_str());
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
