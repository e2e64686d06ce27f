// engine/tokenizer/chat_template.h - Qwen3's chat format without a Jinja
// interpreter.
//
// format_chat() produces what Qwen3's chat_template (tokenizer_config.json)
// renders for plain messages, no tools: `<|im_start|>{role}\n{content}
// <|im_end|>\n` per message, the generation prompt `<|im_start|>assistant\n`
// and, with thinking disabled, an empty `<think>\n\n</think>\n\n` after it.
// Like the template it drops the reasoning (<think>...</think>) of assistant
// turns before the last user query, keeps it (re-spaced) for the turns after
// it, and wraps "tool" messages in <tool_response> inside a user turn.
#pragma once

#include <string>
#include <vector>

namespace engine {

struct ChatMessage {
  std::string role; ///< "system", "user", "assistant" or "tool"
  std::string content;
};

/// The prompt text for `messages` in Qwen3's format; tokenize it with
/// special tokens parsed. Throws engine::Error for a role other than
/// system, user, assistant and tool (the template would drop the message).
std::string format_chat(const std::vector<ChatMessage> &messages,
                        bool add_generation_prompt = true,
                        bool enable_thinking = true);

} // namespace engine
