// engine-bench - the engine's throughput benchmarks.
//
// Default: Nano-vLLM's bench.py protocol (N sequences, prompt and output
// lengths uniform in a range, random token ids below 10000, ignore_eos, a
// fixed seed, one warm-up request), printing output tokens, time, output
// tok/s and total tok/s. --pp / --tg: llama-bench's prompt processing and
// text generation tests (pp512, tg128), repeated, mean and standard
// deviation. --parallel N: decode throughput across N sequences at once
// (llama-batched-bench's TG speed).
//
// With --pp / --tg on the CPU, a roofline: the machine's read bandwidth and
// peak arithmetic rate are measured in the same process on the engine's
// threads (cpu/machine_ceilings.h), and each test reports the bytes and
// operations a token needs (roofline.h), the rates it achieved, its share
// of the bandwidth bound and its MFU. The bound a test is judged against is
// the read bandwidth sampled between its own steps (cpu/bandwidth_sampler.h):
// a VM's can move by half within seconds.
//
// Usage: engine-bench MODEL_DIR [--num-seqs 256 --min-input 100 ...] [--json]
//        engine-bench MODEL_DIR --pp 512 --tg 128 [--repetitions 3]
//        engine-bench MODEL_DIR --parallel 16 --pp 128 --tg 128
#include "engine/cpu/bandwidth_sampler.h"
#include "engine/cpu/cpu_model_runner.h"
#include "engine/cpu/machine_ceilings.h"
#include "engine/error.h"
#include "engine/llm_engine.h"
#include "engine/roofline.h"
#include "engine_options.h"
#include "tool_main.h"

#include <perf/perf.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

using namespace engine;

namespace {
double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Nano-vLLM's bench draws prompt ids below 10000 (fewer for tiny
/// vocabularies).
int32_t g_max_id = 9999;
std::vector<int32_t> random_ids(std::mt19937_64 &rng, int n) {
  std::uniform_int_distribution<int32_t> id(0, g_max_id);
  std::vector<int32_t> ids(n);
  for (auto &t : ids)
    t = id(rng);
  return ids;
}

struct MeanStd {
  double mean = 0, std = 0;
};
MeanStd mean_std(const std::vector<double> &v) {
  MeanStd r;
  for (double x : v)
    r.mean += x / v.size();
  for (double x : v)
    r.std += (x - r.mean) * (x - r.mean);
  r.std = v.size() > 1 ? std::sqrt(r.std / (v.size() - 1)) : 0;
  return r;
}

/// A test's roofline figures: `per_token` is what one token (of `per_step`
/// tokens computed together) costs, `tok_s` the rate achieved.
struct Roofline {
  std::string text, json;
};
/// `bound_bytes_per_s`: the read bandwidth sampled during the test (0: none
/// taken, the run's first measurement is the bound).
Roofline roofline(const WorkCost &per_step, int per_step_tokens, double tok_s,
                  const MachineCeilings *machine, double bound_bytes_per_s,
                  int bound_samples) {
  const double steps_s = tok_s / per_step_tokens;
  const double bytes_s = per_step.bytes * steps_s,
               flops_s = per_step.flops * steps_s;
  char text[256], json[512];
  std::snprintf(json, sizeof json,
                ", \"bytes_per_token\": %.0f, \"flops_per_token\": %.0f, "
                "\"gb_s\": %.3f, \"gflop_s\": %.3f",
                per_step.bytes / per_step_tokens,
                per_step.flops / per_step_tokens, bytes_s / 1e9, flops_s / 1e9);
  Roofline r{"", json};
  if (!machine) {
    std::snprintf(text, sizeof text, " (%.1f GB/s, %.1f GFLOP/s)",
                  bytes_s / 1e9, flops_s / 1e9);
    r.text = text;
    return r;
  }
  const double bound =
      bound_bytes_per_s > 0 ? bound_bytes_per_s : machine->read_bytes_per_s;
  const double bw_pct = 100 * bytes_s / bound,
               mfu = 100 * flops_s / machine->peak_flops;
  char during[64] = "";
  if (bound_bytes_per_s > 0)
    std::snprintf(during, sizeof during, ", %.1f GB/s during the test",
                  bound / 1e9);
  char mfu_text[64] = "", mfu_json[32] = "null";
  if (machine->peak_is_the_kernels) { // AMX: its own peak is not measured
    std::snprintf(mfu_text, sizeof mfu_text, ": %.1f%% MFU", mfu);
    std::snprintf(mfu_json, sizeof mfu_json, "%.2f", mfu);
  }
  std::snprintf(text, sizeof text,
                " (%.1f GB/s: %.0f%% of the bandwidth bound%s; %.1f GFLOP/s%s)",
                bytes_s / 1e9, bw_pct, during, flops_s / 1e9, mfu_text);
  std::snprintf(json, sizeof json,
                ", \"bandwidth_bound_pct\": %.1f, \"mfu_pct\": %s, "
                "\"bound_gb_s\": %.3f, \"bound_samples\": %d",
                bw_pct, mfu_json, bound / 1e9, bound_samples);
  r.text = text;
  r.json += json;
  return r;
}
} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Throughput benchmarks of the bundled engine"};
  std::string model;
  int num_seqs = 256, min_in = 100, max_in = 1024, min_out = 100,
      max_out = 1024, pp = 0, tg = 0, parallel = 0, reps = 3;
  uint64_t seed = 0;
  float temperature = 0.6f;
  bool json = false, progress = false, no_roofline = false;
  EngineConfig config = default_engine_config();
  app.add_option("model", model, "model folder")->required();
  app.add_option("--num-seqs", num_seqs, "sequences (protocol run)");
  app.add_option("--min-input", min_in, "shortest prompt");
  app.add_option("--max-input", max_in, "longest prompt");
  app.add_option("--min-output", min_out, "fewest output tokens");
  app.add_option("--max-output", max_out, "most output tokens");
  app.add_option("--seed", seed, "workload and sampling seed");
  app.add_option("--temperature", temperature, "sampling temperature");
  app.add_option("--pp", pp, "prompt processing test: prompt tokens");
  app.add_option("--tg", tg, "text generation test: generated tokens");
  app.add_option("--parallel", parallel,
                 "with --tg: decode across this many sequences at once");
  app.add_option("--repetitions,-r", reps, "runs of each --pp/--tg test");
  app.add_flag("--json", json, "print the results as JSON");
  app.add_flag("--progress", progress, "show a progress bar");
  app.add_flag("--no-roofline", no_roofline,
               "with --pp/--tg on the CPU: skip measuring the machine's "
               "bandwidth and peak FLOP/s");
  add_engine_options(app, config);
  if (int status = parse_command_line("engine-bench", app, argc, argv);
      status >= 0)
    return status;

  return run_reporting_errors("engine-bench", [&] {
    perf_thread_name("engine-main");
    if (min_in < 1 || max_in < min_in || min_out < 1 || max_out < min_out ||
        num_seqs < 1 || reps < 1 || pp < 0 || tg < 0 || parallel < 0)
      throw Error("bench: lengths, counts and repetitions must be positive "
                  "and each minimum at most its maximum");
    if (parallel && !tg)
      throw Error("bench: --parallel needs --tg");
    // Start-up (the weights loaded, the memory sized, CUDA graphs captured)
    // and the first request (what loads lazily: CUDA's modules, cuBLAS's
    // kernels) are reported apart from the tests: they are paid once.
    const double startup_t0 = now();
    LLM llm(model, config);
    const double startup_s = now() - startup_t0;
    g_max_id =
        int32_t(std::min<int64_t>(9999, llm.model_config().vocab_size - 1));
    std::mt19937_64 rng(seed);
    SamplingParams sp;
    sp.temperature = temperature;
    sp.ignore_eos = true;
    sp.seed = seed;

    // Warm-up: touches the weights and the code paths once.
    sp.max_tokens = 4;
    const double first_t0 = now();
    llm.generate({random_ids(rng, 16)}, {sp});
    const double first_request_s = now() - first_t0;
    llm.reset_stats();

    // What a token costs, and what this machine can do at most (the CPU
    // only: the GPU's ceilings are not measured here).
    const bool on_cpu = llm.config().device == "cpu";
    const ModelCost cost =
        model_cost(llm.model_config(), llm.checkpoint(), on_cpu ? 0 : 2);
    // Both on the engine's own threads, where its kernels run.
    std::optional<MachineCeilings> machine;
    std::optional<BandwidthSampler> sampler;
    auto *cpu_runner = dynamic_cast<const CpuModelRunner *>(&llm.runner());
    if ((pp || tg) && cpu_runner && !no_roofline) {
      machine = measure_machine_ceilings(cpu_runner->threads(), active_isa());
      sampler.emplace(cpu_runner->threads(), active_isa());
    }
    // The bound each test is judged against is read between its steps, at
    // most every kSampleEvery seconds (a pass takes a few milliseconds, so
    // about 2% of the wall time and none of the test's: a step's time is
    // taken inside it). Between repetitions too: a prefill is one step.
    constexpr double kSampleEvery = 0.2;
    double last_sample = 0;
    auto sample_bandwidth = [&](bool now_anyway) {
      if (sampler && (now_anyway || now() - last_sample >= kSampleEvery)) {
        sampler->sample();
        last_sample = now();
      }
    };
    GenerateOptions sampling;
    sampling.on_token = [&](size_t, int32_t) { sample_bandwidth(false); };
    auto bound = [&] { return sampler ? sampler->bytes_per_s() : 0.0; };
    auto bound_samples = [&] { return sampler ? sampler->samples() : 0; };

    char buf[1024], jbuf[1024];
    // The one-row kernel of each bf16 weight shape (the CPU only), in the
    // header and the JSON.
    std::string kernels_json = "null";
    if (auto *cpu = dynamic_cast<const CpuModelRunner *>(&llm.runner())) {
      kernels_json = "[";
      for (const GemvChoice &c : cpu->gemv_choices()) {
        const std::string plan = c.plan ? c.plan->name : "none";
        std::snprintf(
            jbuf, sizeof jbuf,
            "%s{\"rows\": %lld, \"cols\": %lld, \"matrices\": "
            "%lld, \"plan\": \"%s\", \"how\": \"%s\", "
            "\"gb_s\": %.3f, \"default_gb_s\": %.3f, \"seconds\": %.4f}",
            kernels_json.size() > 1 ? ", " : "", (long long)c.rows,
            (long long)c.cols, (long long)c.matrices, plan.c_str(),
            c.how.c_str(), c.gb_s, c.default_gb_s, c.seconds);
        kernels_json += jbuf;
        if (json)
          continue;
        std::string rates;
        if (c.gb_s > 0) {
          std::snprintf(
              buf, sizeof buf, ", %.1f GB/s against the default's %.1f%s",
              c.gb_s, c.default_gb_s,
              c.seconds > 0
                  ? (" (" + std::to_string(int(c.seconds * 1e3 + 0.5)) + " ms)")
                        .c_str()
                  : "");
          rates = buf;
        }
        std::printf("kernel %lldx%lld (%lld %s): %s, %s%s\n", (long long)c.rows,
                    (long long)c.cols, (long long)c.matrices,
                    c.matrices == 1 ? "matrix" : "matrices", plan.c_str(),
                    c.how.c_str(), rates.c_str());
      }
      kernels_json += "]";
    }

    std::string results;
    auto add = [&](const std::string &name, const std::string &j,
                   const std::string &text) {
      results += (results.empty() ? "" : ",\n  ") + ("\"" + name + "\": " + j);
      if (!json)
        std::printf("%s\n", text.c_str());
    };
    std::snprintf(buf, sizeof buf,
                  "start-up: %.3f s (building the engine); the first "
                  "request (16 tokens in, 4 out): %.3f s",
                  startup_s, first_request_s);
    std::snprintf(jbuf, sizeof jbuf,
                  "{\"seconds\": %.3f, \"first_request_seconds\": %.3f}",
                  startup_s, first_request_s);
    add("startup", jbuf, buf);
    if (pp || tg) {
      const int n = std::max(parallel, 1);
      if (pp) {
        std::vector<double> rates;
        if (sampler)
          sampler->reset();
        for (int r = 0; r < reps; ++r) {
          sample_bandwidth(true);
          sp.max_tokens = 1;
          llm.reset_stats();
          // Distinct random prompts so the prefix cache cannot help.
          std::vector<Prompt> prompts;
          for (int i = 0; i < n; ++i)
            prompts.push_back(random_ids(rng, pp));
          llm.generate(prompts, {sp});
          EngineStats s = llm.stats();
          rates.push_back(s.prefill_tokens / s.prefill_seconds);
        }
        sample_bandwidth(true);
        MeanStd m = mean_std(rates);
        // The prompts go through in as few forward passes as the token
        // budget allows, each reading the weights once.
        const int64_t tokens = int64_t(n) * pp;
        const int64_t passes =
            (tokens + llm.config().max_num_batched_tokens - 1) /
            llm.config().max_num_batched_tokens;
        WorkCost all = prefill_cost(cost, pp);
        all.bytes =
            passes * cost.matrix_bytes + n * (all.bytes - cost.matrix_bytes);
        all.flops *= n;
        const Roofline rl =
            roofline(all, int(tokens), m.mean, machine ? &*machine : nullptr,
                     bound(), bound_samples());
        std::snprintf(buf, sizeof buf, "pp%d%s: %.2f ± %.2f tok/s%s", pp,
                      n > 1 ? (" x" + std::to_string(n)).c_str() : "", m.mean,
                      m.std, rl.text.c_str());
        std::snprintf(jbuf, sizeof jbuf,
                      "{\"tokens\": %d, \"sequences\": %d, \"tok_s\": %.3f, "
                      "\"std\": %.3f%s}",
                      pp, n, m.mean, m.std, rl.json.c_str());
        add("pp", jbuf, buf);
      }
      if (tg) {
        // llama-bench's tg runs from an empty context, llama-batched-bench's
        // from its PP-token prompts: --parallel takes --pp as the context.
        const int context = parallel && pp ? pp : 1;
        std::vector<double> rates;
        if (sampler)
          sampler->reset();
        for (int r = 0; r < reps; ++r) {
          sample_bandwidth(true);
          // The first token comes from the prefill and is not counted.
          sp.max_tokens = tg + 1;
          llm.reset_stats();
          std::vector<Prompt> prompts;
          for (int i = 0; i < n; ++i)
            prompts.push_back(random_ids(rng, context));
          llm.generate(prompts, {sp}, sampling);
          EngineStats s = llm.stats();
          rates.push_back(s.decode_tokens / s.decode_seconds);
        }
        sample_bandwidth(true);
        MeanStd m = mean_std(rates);
        // Each step computes one token of every sequence; contexts grow
        // from `context` by one a step.
        const Roofline rl =
            roofline(decode_step_cost(cost, n, context + tg / 2.0), n, m.mean,
                     machine ? &*machine : nullptr, bound(), bound_samples());
        std::snprintf(buf, sizeof buf, "tg%d%s: %.2f ± %.2f tok/s%s", tg,
                      n > 1 ? (" x" + std::to_string(n) + " sequences").c_str()
                            : "",
                      m.mean, m.std, rl.text.c_str());
        std::snprintf(jbuf, sizeof jbuf,
                      "{\"tokens\": %d, \"sequences\": %d, \"context\": %d, "
                      "\"tok_s\": %.3f, \"std\": %.3f%s}",
                      tg, n, context, m.mean, m.std, rl.json.c_str());
        add("tg", jbuf, buf);
      }
    } else {
      std::uniform_int_distribution<int> in_len(min_in, max_in),
          out_len(min_out, max_out);
      std::vector<Prompt> prompts;
      std::vector<SamplingParams> params;
      int64_t total_out = 0, total_in = 0;
      for (int i = 0; i < num_seqs; ++i) {
        const int li = in_len(rng);
        prompts.push_back(random_ids(rng, li));
        SamplingParams p = sp;
        p.max_tokens = out_len(rng);
        p.seed = seed + uint64_t(i);
        params.push_back(p);
        total_out += p.max_tokens;
        total_in += li;
      }
      GenerateOptions opts;
      opts.show_progress = progress;
      const double t0 = now();
      llm.generate(prompts, params, opts);
      const double t = now() - t0;
      std::snprintf(buf, sizeof buf,
                    "Total: %lldtok, Time: %.2fs, Throughput: %.2ftok/s "
                    "(prompt %lld tok; total %.2f tok/s)",
                    (long long)total_out, t, total_out / t, (long long)total_in,
                    (total_in + total_out) / t);
      std::snprintf(jbuf, sizeof jbuf,
                    "{\"sequences\": %d, \"prompt_tokens\": %lld, "
                    "\"output_tokens\": %lld, \"seconds\": %.3f, "
                    "\"output_tok_s\": %.3f, \"total_tok_s\": %.3f}",
                    num_seqs, (long long)total_in, (long long)total_out, t,
                    total_out / t, (total_in + total_out) / t);
      add("throughput", jbuf, buf);
    }
    std::string machine_json = "null", machine_text;
    if (machine) {
      std::snprintf(jbuf, sizeof jbuf,
                    "{\"read_gb_s\": %.3f, \"peak_gflop_s\": %.3f, "
                    "\"peak_instruction\": \"%s\", \"threads\": %d}",
                    machine->read_bytes_per_s / 1e9, machine->peak_flops / 1e9,
                    machine->peak_instruction.c_str(), machine->threads);
      machine_json = jbuf;
      std::snprintf(buf, sizeof buf,
                    "machine: read bandwidth %.1f GB/s, peak %.1f GFLOP/s "
                    "(%s), %d thread%s, measured in this run\n",
                    machine->read_bytes_per_s / 1e9, machine->peak_flops / 1e9,
                    machine->peak_instruction.c_str(), machine->threads,
                    machine->threads == 1 ? "" : "s");
      machine_text = buf;
    }
    if (json)
      std::printf("{\"backend\": \"%s\",\n  \"roofline\": %s,\n  "
                  "\"kernels\": %s,\n  %s}\n",
                  llm.runner().describe().c_str(), machine_json.c_str(),
                  kernels_json.c_str(), results.c_str());
    else
      std::printf("%s%s\n", machine_text.c_str(),
                  llm.runner().describe().c_str());
    return 0;
  });
}
