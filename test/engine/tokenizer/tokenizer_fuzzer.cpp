// test/engine/tokenizer/tokenizer_fuzzer.cpp - encode() on arbitrary bytes
// with a small Qwen3-shaped tokenizer: ill-formed UTF-8 must give
// engine::Error, well-formed text ids that decode back to its NFC, and the
// streaming decoder the same text as decode(). The input's bytes are also
// read as ids for decode(), where unknown ids must give engine::Error.
#include "engine/error.h"
#include "engine/tokenizer/stream_decoder.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "test/fuzz/fuzz_check.h"
#include "tiny_tokenizer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace engine;
  static const Tokenizer tok =
      Tokenizer::from_json(test::tiny_tokenizer().dump());
  std::string text(reinterpret_cast<const char *>(data), size);
  bool valid = find_invalid_utf8(text) == std::string::npos;

  for (bool special : {true, false}) {
    std::vector<int32_t> ids;
    try {
      ids = tok.encode(text, special);
    } catch (const Error &) {
      check(!valid, "encode threw on well-formed UTF-8");
      continue;
    }
    check(valid, "encode accepted ill-formed UTF-8");
    std::string decoded = tok.decode(ids);
    // Added tokens cut the text before NFC, so composition across one
    // (">" + U+0338) differs from NFC of the whole: compare without them.
    if (text.find('<') == std::string::npos)
      check(decoded == nfc(text), "decode(encode(x)) != NFC(x)");
    StreamDecoder stream(tok);
    std::string streamed;
    for (int32_t id : ids)
      streamed += stream.push(id);
    streamed += stream.finish();
    check(streamed == decoded, "streamed text != decode()");
  }

  // Arbitrary ids, some outside the vocabulary.
  std::vector<int32_t> ids;
  for (size_t i = 0; i + 2 <= size && ids.size() < 256; i += 2)
    ids.push_back(int32_t(data[i]) | (int32_t(data[i + 1] & 0x81) << 8));
  bool known = true;
  for (int32_t id : ids)
    known = known && tok.contains(id);
  try {
    std::string decoded = tok.decode(ids);
    check(known, "decode accepted an unknown id");
    check(find_invalid_utf8(decoded) == std::string::npos,
          "decode produced ill-formed UTF-8");
    StreamDecoder stream(tok);
    std::string streamed;
    for (int32_t id : ids)
      streamed += stream.push(id);
    streamed += stream.finish();
    check(streamed == decoded, "streamed ids != decode() of them");
  } catch (const Error &) {
    check(!known, "decode threw on known ids");
  }
  return 0;
}
