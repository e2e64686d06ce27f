// engine/tools/make_model.cpp - engine-make-model: writes a random-weight
// Qwen3 model folder (config.json, generation_config.json, safetensors
// weights, optionally the tokenizer files) that both this engine and
// Hugging Face transformers load. Same options and seed, same bytes.
//
// Usage: engine-make-model --out DIR [--preset tiny|qwen3-0.6b]
//          [--dtype bf16|f16|f32] [--seed N] [--shards N] [--tokenizer DIR]
//          [--hidden-size N ...] [--force]
#include "engine/error.h"
#include "engine/io/random_model.h"

#include "tool_main.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

namespace {

int run(int argc, char **argv) {
  CLI::App app{"Writes a random-weight Qwen3 model folder."};
  std::string out, preset = "tiny", dtype = "bf16";
  engine::RandomModelOptions o;
  app.add_option("--out", out, "Model folder to write (created if missing)")
      ->required();
  app.add_flag("--force", o.force,
               "Write into a non-empty folder, replacing its model files");
  app.add_option("--preset", preset, "Shapes to start from")
      ->check(CLI::IsMember({"tiny", "qwen3-0.6b"}))
      ->capture_default_str();
  int64_t vocab = 0, hidden = 0, inter = 0, layers = 0, heads = 0, kv = 0,
          head_dim = 0, max_pos = 0;
  double theta = 0, eps = 0;
  auto *o_vocab = app.add_option("--vocab-size", vocab, "vocab_size");
  auto *o_hidden = app.add_option("--hidden-size", hidden, "hidden_size");
  auto *o_inter =
      app.add_option("--intermediate-size", inter, "intermediate_size");
  auto *o_layers = app.add_option("--layers", layers, "num_hidden_layers");
  auto *o_heads = app.add_option("--heads", heads, "num_attention_heads");
  auto *o_kv = app.add_option("--kv-heads", kv, "num_key_value_heads");
  auto *o_head_dim = app.add_option("--head-dim", head_dim, "head_dim");
  auto *o_theta = app.add_option("--rope-theta", theta, "rope_theta");
  auto *o_eps = app.add_option("--rms-norm-eps", eps, "rms_norm_eps");
  auto *o_max_pos = app.add_option("--max-position-embeddings", max_pos,
                                   "max_position_embeddings");
  bool tie = false, untie = false;
  auto *o_tie = app.add_flag("--tie", tie, "Tie lm_head to the embeddings");
  app.add_flag("--untie", untie, "Write a separate random lm_head")
      ->excludes(o_tie);
  app.add_flag("--store-lm-head", o.store_lm_head,
               "Also store lm_head.weight (a copy) when tied, as "
               "Qwen3-0.6B's file does");
  app.add_option("--dtype", dtype, "Weight type")
      ->check(CLI::IsMember({"bf16", "f16", "f32"}))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Random seed")->capture_default_str();
  app.add_option("--scale", o.scale, "Standard deviation of linear weights")
      ->capture_default_str();
  app.add_option("--shards", o.shards, "Number of safetensors files")
      ->capture_default_str();
  app.add_option("--tokenizer", o.tokenizer_dir,
                 "Folder to copy tokenizer.json and tokenizer_config.json "
                 "from");
  app.add_option("--threads", o.threads, "Generator threads (0: all cores)")
      ->capture_default_str();
  if (int status =
          engine::parse_command_line("engine-make-model", app, argc, argv);
      status >= 0)
    return status;

  o.config = engine::model_preset(preset);
  engine::ModelConfig &c = o.config;
  if (*o_vocab)
    c.vocab_size = vocab;
  if (*o_hidden)
    c.hidden_size = hidden;
  if (*o_inter)
    c.intermediate_size = inter;
  if (*o_layers)
    c.num_hidden_layers = layers;
  if (*o_heads)
    c.num_attention_heads = heads;
  if (*o_kv)
    c.num_key_value_heads = kv;
  if (*o_head_dim)
    c.head_dim = head_dim;
  if (*o_theta)
    c.rope_theta = theta;
  if (*o_eps)
    c.rms_norm_eps = eps;
  if (*o_max_pos)
    c.max_position_embeddings = max_pos;
  if (tie || untie)
    c.tie_word_embeddings = tie;
  o.dtype = dtype == "f32"   ? engine::DType::F32
            : dtype == "f16" ? engine::DType::F16
                             : engine::DType::BF16;

  auto start = std::chrono::steady_clock::now();
  engine::RandomModelSummary s = engine::write_random_model(out, o);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("engine-make-model: wrote %s: %lld parameters, %zu tensors, "
              "%llu bytes of weights in %.2f s\n",
              out.c_str(), static_cast<long long>(s.parameters), s.tensors,
              static_cast<unsigned long long>(s.bytes), seconds);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  return engine::run_reporting_errors("engine-make-model",
                                      [&] { return run(argc, argv); });
}
