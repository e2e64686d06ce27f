// test/engine/tokenizer/chat_template_test.cpp - format_chat() against
// Qwen3's own chat_template rendered by the reference (golden.json).
#include "engine/error.h"
#include "engine/tokenizer/chat_template.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace engine {
namespace {

TEST(ChatTemplate, MatchesQwen3TemplateOutputForEachGoldenConversation) {
  std::ifstream in(std::string(ENGINE_TEST_DATA) + "/golden.json");
  ASSERT_TRUE(in) << "golden.json missing";
  auto golden = nlohmann::json::parse(in);
  ASSERT_GE(golden["chat"].size(), 5u);
  for (const auto &c : golden["chat"]) {
    std::vector<ChatMessage> messages;
    for (const auto &m : c["messages"])
      messages.push_back({m["role"], m["content"]});
    EXPECT_EQ(
        format_chat(messages, c["add_generation_prompt"], c["enable_thinking"]),
        c["text"].get<std::string>())
        << c["messages"].dump();
  }
}

TEST(ChatTemplate, WrapsEachMessageInImStartImEnd) {
  EXPECT_EQ(format_chat({{"system", "S"}, {"user", "U"}}),
            "<|im_start|>system\nS<|im_end|>\n"
            "<|im_start|>user\nU<|im_end|>\n"
            "<|im_start|>assistant\n");
  EXPECT_EQ(format_chat({{"user", "U"}}, true, false),
            "<|im_start|>user\nU<|im_end|>\n"
            "<|im_start|>assistant\n<think>\n\n</think>\n\n");
  EXPECT_EQ(format_chat({{"user", "U"}}, false),
            "<|im_start|>user\nU<|im_end|>\n");
}

TEST(ChatTemplate, RejectsARoleTheTemplateWouldDrop) {
  try {
    format_chat({{"narrator", "x"}});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("'narrator'"), std::string::npos);
  }
}

} // namespace
} // namespace engine
