// engine/tokenizer/chat_template.cpp - Qwen3's chat format.
//
// Each step mirrors a statement of the Jinja template; the Python string
// methods it calls (split, strip('\n')) are spelled out below.
#include "engine/tokenizer/chat_template.h"

#include "engine/error.h"
#include "engine/tokenizer/utf8.h"

#include <string_view>

namespace engine {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
std::string_view lstrip_newlines(std::string_view s) {
  size_t i = s.find_first_not_of('\n');
  return i == s.npos ? std::string_view() : s.substr(i);
}
std::string_view rstrip_newlines(std::string_view s) {
  size_t i = s.find_last_not_of('\n');
  return i == s.npos ? std::string_view() : s.substr(0, i + 1);
}
/// Python's s.split(sep)[0] and s.split(sep)[-1].
std::string_view before_first(std::string_view s, std::string_view sep) {
  size_t i = s.find(sep);
  return i == s.npos ? s : s.substr(0, i);
}
std::string_view after_last(std::string_view s, std::string_view sep) {
  size_t i = s.rfind(sep);
  return i == s.npos ? s : s.substr(i + sep.size());
}

} // namespace

std::string format_chat(const std::vector<ChatMessage> &messages,
                        bool add_generation_prompt, bool enable_thinking) {
  for (const auto &m : messages)
    if (m.role != "system" && m.role != "user" && m.role != "assistant" &&
        m.role != "tool")
      throw Error("chat message role '" + printable(m.role) +
                  "' is not system, user, assistant or tool");
  std::string out;
  if (!messages.empty() && messages[0].role == "system")
    out += "<|im_start|>system\n" + messages[0].content + "<|im_end|>\n";

  // The last user turn that is a real query (not tool output fed back):
  // reasoning is kept only for the assistant turns after it.
  size_t n = messages.size();
  size_t last_query = n == 0 ? 0 : n - 1;
  for (size_t i = n; i-- > 0;) {
    const auto &m = messages[i];
    if (m.role == "user" && !(starts_with(m.content, "<tool_response>") &&
                              ends_with(m.content, "</tool_response>"))) {
      last_query = i;
      break;
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const ChatMessage &m = messages[i];
    bool last = i + 1 == n;
    if (m.role == "user" || (m.role == "system" && i != 0)) {
      out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
    } else if (m.role == "assistant") {
      std::string_view content = m.content, reasoning;
      if (content.find("</think>") != content.npos) {
        std::string_view all = m.content;
        content = lstrip_newlines(after_last(all, "</think>"));
        reasoning = lstrip_newlines(after_last(
            rstrip_newlines(before_first(all, "</think>")), "<think>"));
      }
      out += "<|im_start|>assistant\n";
      if (i > last_query && (last || !reasoning.empty())) {
        out += "<think>\n";
        out += rstrip_newlines(lstrip_newlines(reasoning));
        out += "\n</think>\n\n";
        out += lstrip_newlines(content);
      } else {
        out += content;
      }
      out += "<|im_end|>\n";
    } else if (m.role == "tool") {
      if (i == 0 || messages[i - 1].role != "tool")
        out += "<|im_start|>user";
      out += "\n<tool_response>\n" + m.content + "\n</tool_response>";
      if (last || messages[i + 1].role != "tool")
        out += "<|im_end|>\n";
    }
  }
  if (add_generation_prompt) {
    out += "<|im_start|>assistant\n";
    if (!enable_thinking)
      out += "<think>\n\n</think>\n\n";
  }
  return out;
}

} // namespace engine
