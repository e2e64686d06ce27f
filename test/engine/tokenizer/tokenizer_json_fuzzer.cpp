// test/engine/tokenizer/tokenizer_json_fuzzer.cpp - the tokenizer.json
// reader on arbitrary input: it must give a working tokenizer or an
// engine::Error, never crash, hang or throw anything else. Seeds are
// variants of the small Qwen3-shaped tokenizer.json.
#include "engine/error.h"
#include "engine/tokenizer/tokenizer.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace engine;
  std::string json(reinterpret_cast<const char *>(data), size);
  try {
    Tokenizer tok = Tokenizer::from_json(json, "fuzz/tokenizer.json");
    // A tokenizer that loads must also work.
    for (const char *text :
         {"", "Hello, world! It's 2024.", "  \n\n\t x <|im_start|>a<think>",
          "\xe4\xb8\xad\xe6\x96\x87 e\xcc\x81 \xf0\x9f\x98\x80"}) {
      try {
        std::vector<int32_t> ids = tok.encode(text);
        tok.decode(ids);
      } catch (const Error &) {
        // A vocabulary with an unk_token and missing bytes, or a pattern
        // that exhausts PCRE2's limits, may refuse; it must say so.
      }
    }
    for (int32_t id = -1; id <= tok.vocab_size() && id < 300; ++id)
      if (tok.contains(id))
        tok.token_text(id);
  } catch (const Error &) {
  }
  return 0;
}
