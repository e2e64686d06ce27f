// engine/tools/tokenize.cpp - engine-tokenize: text to token ids and back
// with a model folder's tokenizer.json, for checking prompts by hand and
// for the tests that compare the engine with the reference tokenizer.
//
//   engine-tokenize MODEL_OR_TOKENIZER [TEXT]        ids, space-separated
//   engine-tokenize MODEL --json [TEXT]              ids as a JSON array
//   engine-tokenize MODEL --chat [--no-think] TEXT   TEXT as one user turn
//   engine-tokenize MODEL --decode [IDS]             ids (spaces, commas or
//                                                    a JSON array) to text
//   engine-tokenize MODEL --batch < corpus.json      JSON array of strings
//                                                    to a JSON array of ids
// Without TEXT the input is standard input, read verbatim (a trailing
// newline is part of the text). Errors: one line on stderr, exit status 2.
#include "engine/error.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

#include "tool_main.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>

namespace {

std::string read_stdin() {
  std::ostringstream text;
  text << std::cin.rdbuf();
  return text.str();
}

std::vector<int32_t> parse_ids(const std::string &text) {
  std::vector<int32_t> ids;
  std::string word;
  auto flush = [&] {
    if (word.empty())
      return;
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(word, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used != word.size() || v < 0 || v > INT32_MAX)
      throw engine::Error("input: '" + word + "' is not a token id");
    ids.push_back(int32_t(v));
    word.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' ||
        c == '[' || c == ']')
      flush();
    else
      word += c;
  }
  flush();
  return ids;
}

void print_ids(const std::vector<int32_t> &ids, bool json) {
  std::string line = json ? "[" : "";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i)
      line += json ? "," : " ";
    line += std::to_string(ids[i]);
  }
  line += json ? "]\n" : "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
}

int run(int argc, char **argv) {
  CLI::App app{"Text to Qwen3 token ids and back (Hugging Face tokenizer.json)",
               "engine-tokenize"};
  std::string model, text;
  bool json = false, decode = false, chat = false, no_special = false;
  bool no_think = false, batch = false;
  app.add_option("MODEL_OR_TOKENIZER", model,
                 "model folder or its tokenizer.json")
      ->required();
  app.add_option("TEXT", text, "text (or ids with --decode); default stdin");
  app.add_flag("--json", json, "print ids as a JSON array");
  app.add_flag("--decode", decode, "read token ids, print their text");
  app.add_flag("--chat", chat,
               "wrap the text as one user message in the chat format");
  app.add_flag(
      "--no-thinking,--no-think", no_think,
      "with --chat: the empty thinking block of enable_thinking=false");
  app.add_flag("--no-special", no_special,
               "special-token text is plain text (with --decode: skip "
               "special tokens)");
  app.add_flag("--batch", batch,
               "input is a JSON array of strings; print a JSON array of id "
               "arrays");
  if (int status =
          engine::parse_command_line("engine-tokenize", app, argc, argv);
      status >= 0)
    return status;
  if (int(decode) + int(chat) + int(batch) > 1)
    throw engine::Error("--decode, --chat and --batch exclude each other");
  if (no_think && !chat)
    throw engine::Error("--no-thinking needs --chat");
  // The chat wrapper's control tokens must be parsed while the user's text
  // would not be: no single encode() call does both.
  if (no_special && chat)
    throw engine::Error("--no-special cannot be combined with --chat");

  engine::Tokenizer tokenizer = engine::Tokenizer::load(model);
  if (app.count("TEXT") == 0)
    text = read_stdin();

  if (decode) {
    std::string out = tokenizer.decode(parse_ids(text), no_special);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  if (batch) {
    nlohmann::json corpus;
    try {
      corpus = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception &) {
      throw engine::Error("input: not a JSON array of strings");
    }
    if (!corpus.is_array())
      throw engine::Error("input: not a JSON array of strings");
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < corpus.size(); ++i) {
      if (!corpus[i].is_string())
        throw engine::Error("input[" + std::to_string(i) + "]: not a string");
      out.push_back(tokenizer.encode(corpus[i].get_ref<const std::string &>(),
                                     !no_special));
    }
    std::cout << out.dump() << "\n";
    return 0;
  }
  if (chat)
    text = engine::format_chat({{"user", text}}, true, !no_think);
  print_ids(tokenizer.encode(text, !no_special), json);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  return engine::run_reporting_errors("engine-tokenize",
                                      [&] { return run(argc, argv); });
}
