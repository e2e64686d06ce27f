#!/usr/bin/env bash
# Runs the project's libFuzzer targets for longer than CI's 20,000 inputs:
# each for SECONDS (default 600) on a copy of its seed corpus, one after the
# other (two cores: one fuzzer, one for the rest of the machine). A crash
# stops that target and leaves its input as build/fuzz-runs/NAME/crash-*;
# fix it, then add the input to the target's seeds.
# Usage: scripts/fuzz.sh [SECONDS] [NAME...]   (needs a build: scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
declare -A corpus=(
  [selection_fuzzer]=test/fuzz/corpus/selection
  [settings_fuzzer]=test/fuzz/corpus/settings
  [cmdline_fuzzer]=test/fuzz/corpus/cmdline
  [summary_fuzzer]=test/fuzz/corpus/summary
  [trace_fuzzer]=test/fuzz/corpus/trace
  [report_fuzzer]=test/fuzz/corpus/trace
  [merge_fuzzer]=test/fuzz/corpus/merge
  [spill_fuzzer]=test/fuzz/corpus/spill
  [safetensors_fuzzer]=test/engine/io/fuzz-corpus
  [engine_tokenizer_fuzzer]=test/engine/tokenizer/fuzz/encode
  [engine_tokenizer_json_fuzzer]=test/engine/tokenizer/fuzz/json
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(selection_fuzzer settings_fuzzer
  cmdline_fuzzer summary_fuzzer trace_fuzzer report_fuzzer merge_fuzzer spill_fuzzer safetensors_fuzzer
  engine_tokenizer_fuzzer engine_tokenizer_json_fuzzer)
status=0
for name in "${names[@]}"; do
  [ -n "${corpus[$name]:-}" ] || { echo "fuzz.sh: $name: no such fuzzer" >&2; exit 2; }
  binary=$(find build/test -name "$name" -type f -perm -u+x | head -1)
  [ -n "$binary" ] || { echo "fuzz.sh: $name: not built (scripts/build.sh)" >&2; exit 2; }
  work=build/fuzz-runs/$name
  rm -rf "$work" && mkdir -p "$work/corpus"
  cp -r "${corpus[$name]}"/. "$work/corpus/"
  start=$(date +%s)
  if (cd "$work" && "$OLDPWD/$binary" -max_total_time="$seconds" -max_len=65536 \
        -print_final_stats=1 corpus > log.txt 2>&1); then
    result=clean
  else
    result="FAILED (see $work/log.txt)"
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log.txt" | grep -o '[0-9]*$' || echo '?')
  echo "$name: $runs inputs in $(( $(date +%s) - start )) s, $result"
done
exit $status
