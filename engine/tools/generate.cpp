// engine-generate - run prompts through the engine and print completions,
// streamed as they are produced.
//
// Usage: engine-generate MODEL_DIR --prompt "Hello" [--prompt ...]
//        engine-generate MODEL_DIR --ids "9707 11" --output ids
//        engine-generate MODEL_DIR --prompts-file prompts.txt --chat
#include "engine/error.h"
#include "engine/llm_engine.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/stream_decoder.h"
#include "engine_options.h"
#include "tool_main.h"

#include <perf/perf.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace engine;

namespace {
std::vector<int32_t> parse_ids(const std::string &text) {
  std::vector<int32_t> ids;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(word, &used);
    } catch (...) {
      used = 0;
    }
    if (used != word.size() || v < 0 || v > INT32_MAX)
      throw Error("--ids: '" + word + "' is not a token id");
    ids.push_back(int32_t(v));
  }
  if (ids.empty())
    throw Error("--ids: no token ids in '" + text + "'");
  return ids;
}

std::vector<std::string> read_lines(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": cannot open");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      lines.push_back(line);
  if (lines.empty())
    throw Error(path + ": no prompts (one per line)");
  return lines;
}

std::string ids_text(const std::vector<int32_t> &ids,
                     const char *separator = " ") {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i)
    s += (i ? separator : "") + std::to_string(ids[i]);
  return s;
}

std::string json_escape(const std::string &s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += char(c);
    else if (c == '\n')
      o += "\\n";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else
      o += char(c);
  }
  return o;
}
} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Generate completions with the bundled engine"};
  std::string model;
  std::vector<std::string> texts, id_lists;
  std::string prompts_file, ids_file, output;
  bool chat = false, no_thinking = false, no_stream = false, quiet = false;
  std::optional<float> temperature, top_p;
  std::optional<int> top_k;
  std::optional<uint64_t> seed;
  SamplingParams sp;
  EngineConfig config = default_engine_config();
  app.add_option("model", model, "model folder")->required();
  app.add_option("--prompt,-p", texts, "prompt text (repeatable)");
  app.add_option("--prompts-file", prompts_file, "one text prompt per line");
  app.add_option("--ids", id_lists, "a prompt as token ids (repeatable)");
  app.add_option("--ids-file", ids_file, "one id prompt per line");
  app.add_flag("--chat", chat, "wrap each text prompt as a user message");
  app.add_flag("--no-thinking,--no-think", no_thinking,
               "with --chat: Qwen3's enable_thinking=False");
  app.add_option("--max-tokens,-n", sp.max_tokens, "tokens to generate");
  app.add_option("--temperature,-t", temperature,
                 "0 = greedy (default: generation_config.json, else 1)");
  app.add_option("--top-k", top_k, "0 = off");
  app.add_option("--top-p", top_p, "1 = off");
  app.add_option("--seed", seed, "seed of every request's sampling");
  app.add_flag("--ignore-eos", sp.ignore_eos, "do not stop at EOS tokens");
  app.add_option("--output,-o", output,
                 "text, ids or json (default: text, ids without a tokenizer)")
      ->check(CLI::IsMember({"text", "ids", "json"}));
  app.add_flag("--no-stream", no_stream,
               "print each completion when it is finished");
  app.add_flag("--quiet,-q", quiet, "no statistics on stderr");
  add_engine_options(app, config);
  if (int status = parse_command_line("engine-generate", app, argc, argv);
      status >= 0)
    return status;

  return run_reporting_errors("engine-generate", [&] {
    perf_thread_name("engine-main");
    std::vector<std::vector<int32_t>> id_prompts;
    std::vector<std::string> all_texts = texts;
    if (!prompts_file.empty())
      for (auto &l : read_lines(prompts_file))
        all_texts.push_back(l);
    for (auto &l : id_lists)
      id_prompts.push_back(parse_ids(l));
    if (!ids_file.empty())
      for (auto &l : read_lines(ids_file))
        id_prompts.push_back(parse_ids(l));
    if (all_texts.empty() && id_prompts.empty())
      throw Error("no prompts: give --prompt, --prompts-file, --ids or "
                  "--ids-file");

    LLM llm(model, config);
    if (output.empty())
      output = llm.tokenizer() ? "text" : "ids";
    const GenerationConfig &g = llm.generation_config();
    sp.temperature = temperature.value_or(g.do_sample ? g.temperature : 0.f);
    sp.top_k = top_k.value_or(g.do_sample ? g.top_k : 0);
    sp.top_p = top_p.value_or(g.do_sample ? g.top_p : 1.f);
    sp.seed = seed;
    // Text prompts first, then token-id prompts, each in the order given.
    std::vector<Prompt> prompts;
    for (const std::string &t : all_texts)
      prompts.push_back(chat ? format_chat({{"user", t}}, true, !no_thinking)
                             : t);
    for (auto &ids : id_prompts)
      prompts.push_back(std::move(ids));

    // Streaming prints as tokens arrive; with several prompts their tokens
    // interleave, so text is printed per prompt when finished instead.
    const bool stream = !no_stream && prompts.size() == 1 && output != "json";
    std::unique_ptr<StreamDecoder> decoder;
    if (stream && output == "text") {
      if (!llm.tokenizer())
        throw Error(model + ": no tokenizer.json; use --output ids");
      decoder = std::make_unique<StreamDecoder>(*llm.tokenizer(), true);
    }
    GenerateOptions opts;
    opts.show_progress = !quiet && !stream;
    if (stream)
      opts.on_token = [&](size_t, int32_t token) {
        if (decoder) {
          // Padding rows past the tokenizer's vocabulary have no text.
          if (token < llm.tokenizer()->vocab_size())
            std::cout << decoder->push(token);
        } else
          std::cout << token << ' ';
        std::cout.flush();
      };
    std::vector<RequestOutput> outs = llm.generate(prompts, {sp}, opts);
    if (stream) {
      if (decoder)
        std::cout << decoder->finish();
      std::cout << '\n';
    } else if (output == "json") {
      std::cout << "[";
      for (size_t i = 0; i < outs.size(); ++i)
        std::cout << (i ? ",\n " : "") << "{\"text\": \""
                  << json_escape(outs[i].text) << "\", \"token_ids\": ["
                  << ids_text(outs[i].token_ids, ", ") << "]}";
      std::cout << "]\n";
    } else {
      for (size_t i = 0; i < outs.size(); ++i) {
        if (outs.size() > 1)
          std::cout << "=== " << i << " ===\n";
        std::cout << (output == "ids" ? ids_text(outs[i].token_ids)
                                      : outs[i].text)
                  << '\n';
      }
    }
    if (!quiet) {
      EngineStats s = llm.stats();
      std::fprintf(
          stderr,
          "%s\nprefill: %lld tokens (%lld cached) in %.2f s, %.1f "
          "tok/s; decode: %lld tokens in %.2f s, %.1f tok/s\n",
          llm.runner().describe().c_str(), (long long)s.prefill_tokens,
          (long long)s.cached_prompt_tokens, s.prefill_seconds,
          s.prefill_seconds > 0 ? s.prefill_tokens / s.prefill_seconds : 0.0,
          (long long)s.decode_tokens, s.decode_seconds,
          s.decode_seconds > 0 ? s.decode_tokens / s.decode_seconds : 0.0);
    }
    return 0;
  });
}
