// Speed of the scheduling part (not a test):
//   <build>/bin/engine_scheduling_bench [rows] [case: 0-4 sampler, 5 scheduler]
// The Sampler on a Qwen3-sized vocabulary (151,936): nanoseconds per row for
// greedy and the usual sampling settings; each row is restored from a
// pristine copy outside the timed region, so every call sees fresh logits,
// as after a forward. Then the Scheduler's own cost per step (schedule() and
// postprocess(), no model) for 256 concurrent requests.
#include "engine/random.h"
#include "engine/sampler.h"
#include "engine/scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace engine;

namespace {

// Logit-like rows: a bulk around 0 with a heavy upper tail.
std::vector<float> make_logits(int64_t vocab, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> l(vocab);
  for (float &x : l) {
    const double u1 = rng.uniform_double() + 1e-12, u2 = rng.uniform_double();
    x = static_cast<float>(2.5 * std::sqrt(-2 * std::log(u1)) *
                           std::cos(6.283185307179586 * u2));
  }
  for (int i = 0; i < 50; ++i)
    l[rng.below(vocab)] += 8.0f + 6.0f * rng.uniform();
  return l;
}

void bench_scheduler(int block_size) {
  SchedulerConfig cfg;
  cfg.max_num_seqs = 256;
  cfg.max_num_batched_tokens = 16384;
  cfg.block_size = block_size;
  cfg.max_model_len = 4096;
  // Room for half the requests at full length (less the shared prefix):
  // decode runs out of blocks and preempts.
  cfg.num_kv_blocks = 256 * (1024 + 256) / block_size / 2;
  Scheduler sched(cfg, {0});
  Rng rng(5);
  std::vector<int32_t> shared(512);
  for (int32_t &t : shared)
    t = 1 + static_cast<int32_t>(rng.below(150000));
  std::vector<std::unique_ptr<Sequence>> seqs;
  for (int i = 0; i < 256; ++i) {
    std::vector<int32_t> prompt = shared;
    for (int j = 0; j < 512; ++j)
      prompt.push_back(1 + static_cast<int32_t>(rng.below(150000)));
    SamplingParams p;
    p.max_tokens = 256;
    p.ignore_eos = true;
    seqs.push_back(
        std::make_unique<Sequence>(i, std::move(prompt), p, block_size));
    sched.add(seqs.back().get());
  }
  double prefill_ns = 0, decode_ns = 0;
  int prefills = 0, decodes = 0;
  std::vector<int32_t> tokens;
  while (!sched.is_finished()) {
    const auto t0 = std::chrono::steady_clock::now();
    const ScheduledBatch b = sched.schedule();
    tokens.assign(b.seqs.size(), 7);
    sched.postprocess(b.seqs, tokens);
    const double ns = std::chrono::duration<double, std::nano>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
    (b.is_prefill ? prefill_ns : decode_ns) += ns;
    ++(b.is_prefill ? prefills : decodes);
  }
  int preemptions = 0;
  for (const auto &s : seqs)
    preemptions += s->num_preemptions;
  std::printf("scheduler, block_size %3d: %5d decode steps %7.1f us/step, "
              "%3d prefill steps %7.1f us/step, %d preemptions\n",
              block_size, decodes, decode_ns / decodes / 1000, prefills,
              prefill_ns / std::max(prefills, 1) / 1000, preemptions);
}

} // namespace

int main(int argc, char **argv) {
  const int64_t vocab = 151936;
  const int rows = std::max(argc > 1 ? std::atoi(argv[1]) : 200, 1);
  const int only = argc > 2 ? std::atoi(argv[2]) : -1;
  const int distinct = 8;
  std::vector<std::vector<float>> pristine;
  for (int i = 0; i < distinct && only < 5; ++i)
    pristine.push_back(make_logits(vocab, 100 + i));
  struct Case {
    const char *name;
    float temperature;
    int top_k;
    float top_p;
  } cases[] = {{"greedy (T=0)", 0, 0, 1},
               {"T=0.6 top_k=20 top_p=0.95", 0.6f, 20, 0.95f},
               {"T=1.0 (full softmax)", 1.0f, 0, 1},
               {"T=0.7 top_p=0.9 (no top_k)", 0.7f, 0, 0.9f},
               {"T=1.0 top_k=1000", 1.0f, 1000, 1}};
  Sampler sampler;
  std::vector<float> work(vocab);
  for (const Case &c : cases) {
    if (pristine.empty() || (only >= 0 && &c - cases != only))
      continue;
    SamplingParams p;
    p.temperature = c.temperature;
    p.top_k = c.top_k;
    p.top_p = c.top_p;
    Rng rng(1);
    std::vector<double> ns;
    int64_t checksum = 0;
    for (int r = -20; r < rows; ++r) { // 20 warm-up rows
      std::memcpy(work.data(), pristine[(r + 20) % distinct].data(),
                  vocab * sizeof(float));
      const auto t0 = std::chrono::steady_clock::now();
      checksum += sampler.sample(work.data(), vocab, p, rng);
      const auto t1 = std::chrono::steady_clock::now();
      if (r >= 0)
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    // The median and the fastest decile resist other processes taking the
    // CPU away mid-row better than the mean does.
    std::sort(ns.begin(), ns.end());
    std::printf("%-30s median %8.0f ns/row, p10 %8.0f  (%d rows, checksum "
                "%lld)\n",
                c.name, ns[ns.size() / 2], ns[ns.size() / 10], rows,
                static_cast<long long>(checksum));
  }
  if (only < 0 || only == 5)
    for (int block_size : {16, 256})
      bench_scheduler(block_size);
  return 0;
}
