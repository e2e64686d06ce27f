// test/engine/tokenizer/tokenizer_errors_test.cpp - loading and encoding
// with a small tokenizer.json: what it does right, and the one-line errors
// for files and inputs it must refuse.
#include "engine/error.h"
#include "engine/tokenizer/tokenizer.h"
#include "tiny_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <unistd.h>

namespace engine {
namespace {

using nlohmann::json;

/// The message of the engine::Error that `f` throws ("" if none).
std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "multi-line error";
    return message;
  }
  return "";
}

std::string load_error(const json &j) {
  return error_of([&] { Tokenizer::from_json(j.dump(), "tokenizer.json"); });
}

TEST(TinyTokenizer, AppliesItsMergesAndAddedTokens) {
  Tokenizer t = Tokenizer::from_json(test::tiny_tokenizer().dump());
  auto id = [&](const char *token) { return *t.token_id(token); };
  EXPECT_EQ(t.encode(" the"), std::vector<int32_t>{id("\xc4\xa0the")});
  EXPECT_EQ(t.encode("aaaaa"), (std::vector<int32_t>{id("aaaa"), id("a")}));
  EXPECT_EQ(
      t.encode("<|im_start|>in<think>"),
      (std::vector<int32_t>{id("<|im_start|>"), id("in"), id("<think>")}));
  // Digits are split one by one by the regex, so "12" never merges.
  EXPECT_EQ(t.encode("12"), (std::vector<int32_t>{id("1"), id("2")}));
  EXPECT_EQ(t.decode(t.encode("e\xcc\x81 \xe4\xb8\xad")),
            "\xc3\xa9 \xe4\xb8\xad");
  EXPECT_TRUE(t.is_special(id("<|im_end|>")));
  EXPECT_FALSE(t.is_special(id("<think>")));
  EXPECT_EQ(t.vocab_size(), 256 + 10 + 3);
}

TEST(TinyTokenizer, TokenizersSharingAThreadDoNotShareCachedPieces) {
  // The per-thread piece cache must key on the tokenizer: the same word
  // encodes differently without the merges.
  json no_merges = test::tiny_tokenizer();
  no_merges["model"]["merges"] = json::array();
  Tokenizer with = Tokenizer::from_json(test::tiny_tokenizer().dump());
  Tokenizer without = Tokenizer::from_json(no_merges.dump());
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(with.encode(" the").size(), 1u);
    EXPECT_EQ(without.encode(" the").size(), 4u);
  }
}

TEST(TokenizerErrors, TextThatIsNotJsonNamesTheFile) {
  std::string e = error_of(
      [] { Tokenizer::from_json("{\"model\": [1, 2", "m/tokenizer.json"); });
  EXPECT_EQ(e.rfind("m/tokenizer.json: not valid JSON (", 0), 0u) << e;
  // nlohmann reports this one as out_of_range, not as a parse error.
  e = error_of([] { Tokenizer::from_json("{\"version\": 1e999}", "t.json"); });
  EXPECT_EQ(e.rfind("t.json: not valid JSON (", 0), 0u) << e;
  EXPECT_EQ(error_of([] { Tokenizer::from_json("[]", "t.json"); }),
            "t.json: not a tokenizer (the top level is not a JSON object)");
}

TEST(TokenizerErrors, MissingModelOrVocabIsNamed) {
  json j = test::tiny_tokenizer();
  j.erase("model");
  EXPECT_EQ(load_error(j), "tokenizer.json: missing field 'model'");
  j = test::tiny_tokenizer();
  j["model"].erase("vocab");
  EXPECT_EQ(load_error(j), "tokenizer.json: missing field 'model.vocab'");
  for (json bad : {json("not an id"), json::array({1}), json{{"id", 1}},
                   json(1.5), json(nullptr)}) {
    j = test::tiny_tokenizer();
    j["model"]["vocab"]["a"] = bad;
    EXPECT_EQ(load_error(j),
              "tokenizer.json: 'model.vocab.a' is not an integer id")
        << bad.dump();
  }
}

TEST(TokenizerErrors, UnsupportedComponentsAreNamed) {
  struct Case {
    std::function<void(json &)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json &j) {
         j["pre_tokenizer"] = {{"type", "Metaspace"}};
       },
       "tokenizer.json: unsupported pre_tokenizer type 'Metaspace'"},
      {[](json &j) {
         j["pre_tokenizer"]["pretokenizers"][1]["type"] = "Digits";
       },
       "tokenizer.json: unsupported pre_tokenizer type 'Digits'"},
      {[](json &j) { j["pre_tokenizer"] = nullptr; },
       "tokenizer.json: unsupported pre_tokenizer type 'null'"},
      {[](json &j) {
         j["normalizer"] = {{"type", "NFKC"}};
       },
       "tokenizer.json: unsupported normalizer type 'NFKC'"},
      {[](json &j) { j["model"]["type"] = "WordPiece"; },
       "tokenizer.json: unsupported model type 'WordPiece'"},
      {[](json &j) {
         j["decoder"] = {{"type", "Metaspace"}};
       },
       "tokenizer.json: unsupported decoder type 'Metaspace'"},
      {[](json &j) { j.erase("decoder"); },
       "tokenizer.json: unsupported decoder type 'null'"},
      {[](json &j) {
         j["post_processor"] = {{"type", "TemplateProcessing"}};
       },
       "tokenizer.json: unsupported post_processor type "
       "'TemplateProcessing'"},
      {[](json &j) {
         j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed";
       },
       "tokenizer.json: unsupported pre_tokenizer Split behavior 'Removed'"},
      {[](json &j) { j["pre_tokenizer"]["pretokenizers"][0]["invert"] = true; },
       "tokenizer.json: unsupported pre_tokenizer Split with invert true"},
      {[](json &j) { j["model"]["dropout"] = 0.1; },
       "tokenizer.json: unsupported model BPE dropout (encoding would be "
       "random)"},
      {[](json &j) { j["model"]["byte_fallback"] = true; },
       "tokenizer.json: unsupported model BPE byte_fallback"},
      {[](json &j) { j["added_tokens"][0]["lstrip"] = true; },
       "tokenizer.json: unsupported added_tokens option lstrip (on "
       "'<|im_start|>')"},
      {[](json &j) {
         j["truncation"] = {{"max_length", 8}};
       },
       "tokenizer.json: unsupported truncation (set it to null)"},
  };
  for (const Case &c : cases) {
    json j = test::tiny_tokenizer();
    c.edit(j);
    EXPECT_EQ(load_error(j), c.message);
  }
}

TEST(TokenizerErrors, InconsistentVocabularyOrMergesAreNamed) {
  json j = test::tiny_tokenizer();
  j["model"]["merges"].push_back(json::array({"q", "q"}));
  EXPECT_EQ(load_error(j),
            "tokenizer.json: model.merges[10]: 'qq' is not in model.vocab");
  j = test::tiny_tokenizer();
  j["model"]["merges"].push_back("qq");
  EXPECT_EQ(load_error(j), "tokenizer.json: model.merges[10] 'qq' is not two "
                           "tokens separated by one space");
  j = test::tiny_tokenizer();
  j["model"]["merges"].push_back(json::array({1, 2}));
  EXPECT_EQ(load_error(j), "tokenizer.json: model.merges[10] is neither "
                           "\"a b\" nor [\"a\", \"b\"]");
  j = test::tiny_tokenizer();
  j["model"]["vocab"].erase("\xc4\x8a"); // 'Ċ', the byte 0x0a
  EXPECT_EQ(
      load_error(j).rfind("tokenizer.json: model.vocab lacks byte 0x0a", 0),
      0u);
  j = test::tiny_tokenizer();
  j["model"]["vocab"]["zz"] = 5;
  EXPECT_EQ(load_error(j),
            "tokenizer.json: model.vocab gives id 5 to two tokens");
  j = test::tiny_tokenizer();
  j["model"]["vocab"]["zz"] = 2000000000;
  EXPECT_NE(load_error(j).find("ids must be dense"), std::string::npos);
  j = test::tiny_tokenizer();
  j["model"]["vocab"]["zz"] = -3;
  EXPECT_EQ(load_error(j),
            "tokenizer.json: 'model.vocab.zz' id -3 is out of range");
  j = test::tiny_tokenizer();
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a";
  EXPECT_EQ(load_error(j).rfind("tokenizer.json: "
                                "pre_tokenizer.pretokenizers[0].pattern: "
                                "invalid regex at offset 2: ",
                                0),
            0u)
      << load_error(j);
}

TEST(TokenizerErrors, FilesThatCannotBeReadAreNamed) {
  EXPECT_EQ(error_of([] { Tokenizer::load("/nonexistent/model"); }),
            "/nonexistent/model: cannot open (No such file or directory)");
  char dir[] = "/tmp/engine_tokenizer_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string folder = dir;
  EXPECT_EQ(error_of([&] { Tokenizer::load(folder); }),
            folder + "/tokenizer.json: cannot open (No such file or "
                     "directory)");
  { std::ofstream(folder + "/tokenizer.json") << "not json"; }
  EXPECT_EQ(error_of([&] {
              Tokenizer::load(folder);
            }).rfind(folder + "/tokenizer.json: not valid JSON (", 0),
            0u);
  {
    std::ofstream(folder + "/tokenizer.json") << test::tiny_tokenizer().dump();
  }
  EXPECT_EQ(Tokenizer::load(folder).vocab_size(), 269);
  EXPECT_EQ(Tokenizer::load(folder + "/tokenizer.json").vocab_size(), 269);
  std::remove((folder + "/tokenizer.json").c_str());
  rmdir(dir);
}

TEST(TokenizerErrors, BadInputToEncodeOrDecodeIsNamed) {
  Tokenizer t = Tokenizer::from_json(test::tiny_tokenizer().dump());
  EXPECT_EQ(error_of([&] { t.encode("abc\xe4\xb8"); }),
            "input is not valid UTF-8 at byte 3");
  EXPECT_EQ(error_of([&] {
              t.decode({1, 269});
            }),
            "token id 269 is not in the vocabulary (269 ids)");
  EXPECT_EQ(error_of([&] { t.decode({-5}); }),
            "token id -5 is not in the vocabulary (269 ids)");
}

} // namespace
} // namespace engine
