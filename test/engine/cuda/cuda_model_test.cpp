// The CUDA backend's whole model: logits against the CPU backend step by
// step (prefill, then decode) on random Qwen3-shaped checkpoints, against
// the golden fixtures' float64 reference, graph replay against eager
// launches, and the KV cache sized from gpu_memory_utilization. Needs a GPU
// (ctest label gpu; skipped without one).
#include "engine/cpu/kv_cache.h"
#include "engine/cpu/qwen3_cpu_model.h"
#include "engine/cpu/thread_pool.h"
#include "engine/cuda/cuda_model_runner.h"
#include "engine/error.h"
#include "engine/forward_batch.h"
#include "engine/io/checkpoint.h"
#include "engine/io/random_model.h"
#include "engine/sampler.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

using namespace engine;
using engine::cuda::CudaModelRunner;

namespace {
constexpr int kBlock = 16, kBlocks = 256;

std::string random_model(const std::string &name, ModelConfig config) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("engine_cuda_model_test_" + name);
  RandomModelOptions o;
  o.config = config;
  o.seed = 11;
  o.scale = 1.0 / std::sqrt(double(config.hidden_size));
  o.force = true;
  write_random_model(dir.string(), o);
  return dir.string();
}

ModelConfig qwen3_like(int64_t hd, int64_t heads, int64_t kv_heads) {
  ModelConfig c = model_preset("tiny");
  c.vocab_size = 3000;
  c.hidden_size = 256;
  c.intermediate_size = 640;
  c.num_hidden_layers = 3;
  c.num_attention_heads = heads;
  c.num_key_value_heads = kv_heads;
  c.head_dim = hd;
  c.tie_word_embeddings = true;
  return c;
}

EngineConfig gpu_config(bool eager) {
  EngineConfig c = default_engine_config();
  c.device = "cuda";
  c.kvcache_block_size = kBlock;
  c.max_model_len = 1024;
  c.max_num_batched_tokens = 2048;
  c.max_num_seqs = 12;
  c.num_kvcache_blocks = kBlocks;
  c.enforce_eager = eager;
  return c;
}

SamplingParams greedy() {
  SamplingParams p;
  p.temperature = 0;
  return p;
}

/// Sequences with blocks handed out from the top of the pool down, so
/// tables are not the identity.
struct Seqs {
  std::vector<std::unique_ptr<Sequence>> owned;
  std::vector<Sequence *> ptrs;
  int next_block = kBlocks - 1;

  void add(std::vector<int32_t> prompt) {
    owned.push_back(std::make_unique<Sequence>(
        int64_t(owned.size()), std::move(prompt), greedy(), kBlock));
    ptrs.push_back(owned.back().get());
    cover(*owned.back());
  }
  void cover(Sequence &s) {
    while (int(s.block_table.size()) < s.num_blocks())
      s.block_table.push_back(next_block--);
  }
  void append(const std::vector<int32_t> &tokens) {
    for (size_t i = 0; i < ptrs.size(); ++i) {
      ptrs[i]->token_ids.push_back(tokens[i]);
      cover(*ptrs[i]);
    }
  }
};

std::vector<int32_t> random_prompt(int len, int vocab, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> ids(static_cast<size_t>(len));
  for (auto &t : ids)
    t = int32_t(rng() % uint64_t(vocab));
  return ids;
}

struct Diff {
  double max_abs = 0, scale = 0;
  int argmax_disagreements = 0, clear_rows = 0;
};

/// How far the GPU's logits are from the CPU's, relative to the CPU
/// logits' standard deviation; top-1 compared on rows whose CPU margin is
/// clear (over a tenth of that deviation).
Diff compare(const std::vector<float> &gpu, const std::vector<float> &cpu,
             int rows, int64_t vocab) {
  Diff d;
  double sum = 0, sq = 0;
  for (float x : cpu) {
    sum += x;
    sq += double(x) * x;
  }
  const double n = double(cpu.size());
  d.scale = std::sqrt(std::max(sq / n - (sum / n) * (sum / n), 1e-12));
  for (size_t i = 0; i < cpu.size(); ++i)
    d.max_abs = std::max(d.max_abs, double(std::abs(gpu[i] - cpu[i])));
  for (int r = 0; r < rows; ++r) {
    const float *c = &cpu[size_t(r) * vocab], *g = &gpu[size_t(r) * vocab];
    const int32_t top = Sampler::argmax(c, vocab);
    float second = -INFINITY;
    for (int64_t i = 0; i < vocab; ++i)
      if (i != top)
        second = std::max(second, c[i]);
    if (c[top] - second > 0.1 * d.scale) {
      ++d.clear_rows;
      d.argmax_disagreements += Sampler::argmax(g, vocab) != top;
    }
  }
  return d;
}

/// Prefill of three prompts (one longer than a 256-key decode partition)
/// and 20 decode steps, each fed the CPU's greedy tokens, on both backends.
void expect_backends_agree(const std::string &dir) {
  ModelConfig mc = load_model_config(dir);
  Checkpoint ckpt(dir);
  Qwen3Weights w = bind_qwen3_weights(mc, ckpt);
  ThreadPool pool(2);
  Qwen3CpuModel cpu(pool, mc, w, 1024);
  KvCache cpu_kv(int(mc.num_hidden_layers), kBlocks, kBlock,
                 int(mc.num_key_value_heads), int(mc.head_dim), DType::BF16);
  EngineConfig ec = gpu_config(false);
  validate(ec, mc);
  CudaModelRunner gpu(ec, mc, ckpt);

  Seqs seqs;
  seqs.add(random_prompt(300, int(mc.vocab_size), 1));
  seqs.add(random_prompt(17, int(mc.vocab_size), 2));
  seqs.add(random_prompt(129, int(mc.vocab_size), 3));
  double worst = 0;
  for (int step = 0; step <= 20; ++step) {
    const bool prefill = step == 0;
    ForwardBatch b = build_forward_batch(seqs.ptrs, prefill);
    const int rows = b.num_seqs();
    std::vector<float> cpu_logits(size_t(rows) * mc.vocab_size);
    cpu.forward(pool, b, cpu_kv, cpu_logits.data());
    gpu.run(seqs.ptrs, prefill);
    const Diff d = compare(gpu.last_logits(), cpu_logits, rows, mc.vocab_size);
    worst = std::max(worst, d.max_abs / d.scale);
    // bf16 activations on both sides, rounded at different points: a few
    // percent of the logits' spread, never a wrong clear top-1.
    EXPECT_LT(d.max_abs, 0.1 * d.scale) << "step " << step;
    EXPECT_EQ(d.argmax_disagreements, 0)
        << "step " << step << " of " << d.clear_rows << " clear rows";
    std::vector<int32_t> next(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r)
      next[size_t(r)] = Sampler::argmax(&cpu_logits[size_t(r) * mc.vocab_size],
                                        mc.vocab_size);
    seqs.append(next);
  }
  std::printf("[ figures  ] %s: worst |gpu - cpu| over 21 steps = %.4f of the "
              "logits' standard deviation\n",
              dir.c_str(), worst);
}
} // namespace

TEST(CudaModel, LogitsMatchTheCpuBackendQwen3Shape) {
  expect_backends_agree(random_model("hd128", qwen3_like(128, 16, 8)));
}

TEST(CudaModel, LogitsMatchTheCpuBackendOtherShapes) {
  expect_backends_agree(random_model("hd64_gqa4", qwen3_like(64, 8, 2)));
  expect_backends_agree(random_model("hd32_mha", qwen3_like(32, 4, 4)));
}

TEST(CudaModel, GraphReplayEqualsEagerLaunches) {
  const std::string dir = random_model("graphs", qwen3_like(128, 16, 8));
  ModelConfig mc = load_model_config(dir);
  Checkpoint ckpt(dir);
  EngineConfig eager_c = gpu_config(true), graph_c = gpu_config(false);
  validate(eager_c, mc);
  validate(graph_c, mc);
  CudaModelRunner eager(eager_c, mc, ckpt);
  CudaModelRunner graph(graph_c, mc, ckpt);
  EXPECT_TRUE(eager.graph_sizes().empty());
  EXPECT_EQ(graph.graph_sizes(), (std::vector<int>{1, 2, 4, 8, 12}));
  // Batch sizes on the ladder and between its rungs (padded).
  for (int n : {1, 3, 5, 12}) {
    Seqs a, b;
    for (int i = 0; i < n; ++i) {
      a.add(random_prompt(20 + 23 * i, int(mc.vocab_size), uint64_t(100 + i)));
      b.add(random_prompt(20 + 23 * i, int(mc.vocab_size), uint64_t(100 + i)));
    }
    const auto ta = eager.run(a.ptrs, true), tb = graph.run(b.ptrs, true);
    ASSERT_EQ(ta, tb);
    a.append(ta);
    b.append(tb);
    for (int step = 0; step < 8; ++step) {
      const auto ea = eager.run(a.ptrs, false), gb = graph.run(b.ptrs, false);
      const auto la = eager.last_logits(), lb = graph.last_logits();
      double worst = 0, scale = 0;
      for (size_t i = 0; i < la.size(); ++i) {
        worst = std::max(worst, double(std::abs(la[i] - lb[i])));
        scale = std::max(scale, double(std::abs(la[i])));
      }
      // The same kernels; cuBLAS may pick another algorithm for the padded
      // batch, so equal up to fp32 summation order.
      EXPECT_LE(worst, 1e-3 * scale) << n << " sequences, step " << step;
      ASSERT_EQ(ea, gb) << n << " sequences, step " << step;
      a.append(ea);
      b.append(gb);
    }
  }
}

TEST(CudaModel, LastTokenLogitsMatchTheGoldenReference) {
  for (const char *name :
       {"gqa4_hidden48_untied_bf16", "qwen3_0p6b_like_gqa2_tiedcopy_bf16",
        "gqa2_headdim32_tied_f32", "mha_untied_f16_sharded"}) {
    const std::string dir = std::string(GOLDEN_DIR) + "/" + name;
    std::ifstream in(dir + "/golden.json");
    const nlohmann::json golden = nlohmann::json::parse(in);
    ModelConfig mc = load_model_config(dir);
    Checkpoint ckpt(dir);
    EngineConfig ec = gpu_config(false);
    ec.max_model_len = 64;
    ec.max_num_batched_tokens = 256;
    validate(ec, mc);
    CudaModelRunner gpu(ec, mc, ckpt);
    // bf16 weights (f32 and f16 ones are rounded on upload) and
    // activations: twice the drift the reference measured for bf16
    // activations and KV, the CPU backend's own bound for bf16 models.
    const double tol =
        2 *
        std::max(golden["bf16_activation_rounding_max_abs_diff"].get<double>(),
                 golden["bf16_activation_and_kv_rounding_max_abs_diff"]
                     .get<double>());
    Seqs seqs;
    for (auto &p : golden["prompts"])
      seqs.add(p.get<std::vector<int32_t>>());
    gpu.run(seqs.ptrs, true);
    const auto logits = gpu.last_logits();
    for (size_t p = 0; p < seqs.ptrs.size(); ++p) {
      const auto &want = golden["prompt_logits"][p].back();
      double worst = 0;
      for (int64_t v = 0; v < mc.vocab_size; ++v)
        worst = std::max(worst, std::abs(double(logits[p * mc.vocab_size + v]) -
                                         want[size_t(v)].get<double>()));
      EXPECT_LE(worst, tol) << name << " prompt " << p;
      std::printf("[ figures  ] %s prompt %zu: max |gpu - reference| %.4f "
                  "(tolerance %.4f)\n",
                  name, p, worst, tol);
    }
  }
}

TEST(CudaModel, KvCacheTakesWhatGpuMemoryUtilizationLeaves) {
  const std::string dir = random_model("memory", qwen3_like(128, 16, 8));
  ModelConfig mc = load_model_config(dir);
  Checkpoint ckpt(dir);
  int blocks[2];
  const double util[2] = {0.3, 0.5};
  for (int i = 0; i < 2; ++i) {
    EngineConfig c = gpu_config(true);
    c.num_kvcache_blocks = -1;
    c.gpu_memory_utilization = util[i];
    validate(c, mc);
    CudaModelRunner gpu(c, mc, ckpt);
    blocks[i] = gpu.num_kv_blocks();
    EXPECT_NE(gpu.describe().find("KV blocks"), std::string::npos);
  }
  size_t free_b = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_b, &total), cudaSuccess);
  const double block_bytes = 2.0 * 3 * kBlock * 8 * 128 * 2;
  // 20% more of the card, in blocks, within 1%.
  EXPECT_NEAR((blocks[1] - blocks[0]) * block_bytes, 0.2 * double(total),
              0.01 * double(total));

  EngineConfig c = gpu_config(true);
  c.num_kvcache_blocks = -1;
  c.gpu_memory_utilization = 0.001;
  validate(c, mc);
  try {
    CudaModelRunner gpu(c, mc, ckpt);
    FAIL() << "0.1% of the card cannot hold the model";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("gpu_memory_utilization"),
              std::string::npos)
        << e.what();
  }
}
