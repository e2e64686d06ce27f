#!/usr/bin/env bash
# The engine's programs end to end on a golden model: generate (ids in and
# out, JSON), bench (--json, pp/tg), and their one-line errors with status 2.
# Usage: tools_test.sh BIN_DIR GOLDEN_MODEL_DIR
set -u
bin=$1 model=$2
fail=0
expect() { # expect NAME STATUS PATTERN -- CMD...
  local name=$1 status=$2 pattern=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $status ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: $name: exit $rc (want $status), output:"; echo "$out" | head -5
    fail=1
  fi
}
small=(--threads 2 --max-model-len 64 --max-num-batched-tokens 256
       --num-kvcache-blocks 32 --kvcache-block-size 8)

# Golden greedy path of the first fixture prompt (test/engine/golden).
golden_prompt=$(python3 -c "import json,sys; g=json.load(open('$model/golden.json')); print(' '.join(map(str,g['prompts'][1])))")
golden_greedy=$(python3 -c "import json,sys; g=json.load(open('$model/golden.json')); print(' '.join(map(str,g['greedy'][1])))")
expect "generate: greedy ids match the reference" 0 "^$golden_greedy\$" -- \
  "$bin/engine-generate" "$model" --ids "$golden_prompt" -n 12 -t 0 \
  --output ids --no-stream --quiet "${small[@]}"
expect "generate: streamed ids match too" 0 "^$golden_greedy ?\$" -- \
  "$bin/engine-generate" "$model" --ids "$golden_prompt" -n 12 -t 0 \
  --output ids --quiet "${small[@]}"
expect "generate: json output" 0 '^\[\{"text": "", "token_ids": \[[0-9]+(, [0-9]+){3}\]\}' -- \
  "$bin/engine-generate" "$model" --ids "1 2 3" -n 4 --output json --quiet "${small[@]}"
expect "generate: statistics on stderr" 0 "decode: [0-9]+ tokens" -- \
  "$bin/engine-generate" "$model" --ids "1 2 3" -n 4 --output ids "${small[@]}"
expect "generate: no prompts" 2 "^engine-generate: no prompts" -- \
  "$bin/engine-generate" "$model" "${small[@]}"
expect "generate: bad id" 2 "^engine-generate: --ids: 'x1' is not a token id" -- \
  "$bin/engine-generate" "$model" --ids "1 x1" "${small[@]}"
expect "generate: text without tokenizer" 2 "tokenizer.json" -- \
  "$bin/engine-generate" "$model" --prompt hi "${small[@]}"
expect "generate: prompt too long" 2 "max_model_len" -- \
  "$bin/engine-generate" "$model" --ids "$(seq -s ' ' 1 80)" "${small[@]}"
expect "generate: missing model" 2 "^engine-generate: /nonexistent" -- \
  "$bin/engine-generate" /nonexistent --ids 1 "${small[@]}"
expect "generate: bad option value" 2 "tensor_parallel_size" -- \
  "$bin/engine-generate" "$model" --ids 1 --tensor-parallel-size 2 "${small[@]}"
expect "generate: unknown device" 2 "^engine-generate: engine: device 'tpu' is not available" -- \
  "$bin/engine-generate" "$model" --ids 1 --device tpu "${small[@]}"
# The CUDA backend where there is no GPU: one line saying so, status 2 (on a
# machine with a GPU the run must succeed instead).
if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then
  expect "generate: --device cuda on a GPU" 0 "" -- \
    "$bin/engine-generate" "$model" --ids 1 --device cuda "${small[@]}"
elif grep -q 'ENGINE_HAVE_CUDA:INTERNAL=ON' "$bin/../CMakeCache.txt" 2>/dev/null; then
  expect "generate: --device cuda without a GPU" 2 \
    "^engine-generate: engine: device cuda: no CUDA GPU is available \(.+\)\$" -- \
    "$bin/engine-generate" "$model" --ids 1 --device cuda "${small[@]}"
fi
expect "bench: protocol run as JSON" 0 '"output_tok_s": [0-9.]+' -- \
  "$bin/engine-bench" "$model" --num-seqs 4 --min-input 4 --max-input 8 \
  --min-output 4 --max-output 8 --json "${small[@]}"
expect "bench: start-up and the first request" 0 "^start-up: [0-9]+\\.[0-9]{3} s \\(building the engine\\); the first request \\(16 tokens in, 4 out\\): [0-9]+\\.[0-9]{3} s\$" -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 1 --no-roofline "${small[@]}"
expect "bench: start-up as JSON" 0 '"startup": \{"seconds": [0-9]+\.[0-9]{3}, "first_request_seconds": [0-9]+\.[0-9]{3}\}' -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 1 --no-roofline --json "${small[@]}"
expect "bench: pp and tg" 0 "tg8: [0-9.]+ ± [0-9.]+ tok/s" -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 2 "${small[@]}"
expect "bench: parallel decode" 0 "tg8 x4 sequences" -- \
  "$bin/engine-bench" "$model" --pp 8 --tg 8 --parallel 4 -r 1 "${small[@]}"
# The roofline: the machine measured in the same run, each test against the
# read bandwidth sampled between its steps (no MFU at the amx level, whose
# own peak is not measured).
expect "bench: roofline in the table" 0 "^machine: read bandwidth [0-9.]+ GB/s, peak [0-9.]+ GFLOP/s \\(.+\\), 2 threads" -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 1 "${small[@]}"
expect "bench: each test against the roofline" 0 "^tg8: [0-9.]+ ± [0-9.]+ tok/s \\([0-9.]+ GB/s: [0-9]+% of the bandwidth bound, [0-9.]+ GB/s during the test; [0-9.]+ GFLOP/s(: [0-9.]+% MFU)?\\)" -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 1 "${small[@]}"
expect "bench: roofline as JSON" 0 '"bytes_per_token": [0-9]+, "flops_per_token": [0-9]+, "gb_s": [0-9.]+, "gflop_s": [0-9.]+, "bandwidth_bound_pct": [0-9.]+, "mfu_pct": ([0-9.]+|null), "bound_gb_s": [0-9.]+, "bound_samples": [1-9][0-9]*' -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 1 --json "${small[@]}"
expect "bench: --no-roofline" 0 '"roofline": null' -- \
  "$bin/engine-bench" "$model" --pp 16 --tg 8 -r 1 --json --no-roofline "${small[@]}"
# Decode's kernel per bf16 weight shape, chosen by measurement (the f32 model
# above has none); a model this small is not measured unless asked, and on a
# loaded machine the 0.3 s budget may run out first (the measurement itself is
# engine_cpu_gemv_test's).
bf16_model=$(dirname "$model")/qwen3_0p6b_like_gqa2_tiedcopy_bf16
expect "bench: the kernel of each shape" 0 "^kernel [0-9]+x[0-9]+ \\([0-9]+ matri(x|ces)\\): [a-z0-9-]+, default \\(model fits in cache\\)\$" -- \
  "$bin/engine-bench" "$bf16_model" --tg 4 -r 1 --no-roofline "${small[@]}"
expect "bench: kernels measured, as JSON" 0 '"kernels": \[\{"rows": [0-9]+, "cols": [0-9]+, "matrices": [0-9]+, "plan": "[a-z0-9-]+", "how": "(measured( \(not kept: other processes used [0-9.]+ cores\)| in part \(budget spent\))?|(like [0-9]+x[0-9]+|default) \(budget spent\))", "gb_s": [0-9.]+, "default_gb_s": [0-9.]+, "seconds": [0-9.]+\}' -- \
  "$bin/engine-bench" "$bf16_model" --tg 4 -r 1 --no-roofline --json \
  --kernels measure --kernel-wisdom none "${small[@]}"
expect "bench: a forced kernel" 0 "^kernel [0-9]+x[0-9]+ \\([0-9]+ matri(x|ces)\\): avx2w-r4u1-pf1-dyn, forced\$" -- \
  "$bin/engine-bench" "$bf16_model" --tg 4 -r 1 --no-roofline \
  --kernels avx2w-r4u1-pf1-dyn "${small[@]}"
expect "bench: an unknown kernel" 2 "^engine-bench: engine: kernels: unknown value 'fastest' \\(expected auto, measure, default, or a plan: one of avx2-r2u1-pf1, " -- \
  "$bin/engine-bench" "$bf16_model" --tg 4 --kernels fastest "${small[@]}"
expect "generate: malformed option value" 2 "^engine-generate: Could not convert: --max-tokens = abc\$" -- \
  "$bin/engine-generate" "$model" --ids 1 --max-tokens abc
expect "bench: unknown option" 2 "^engine-bench: The following argument was not expected: --bogus\$" -- \
  "$bin/engine-bench" "$model" --bogus
expect "bench: --help" 0 "pp512|--pp" -- "$bin/engine-bench" --help
expect "bench: bad lengths" 2 "^engine-bench: bench: lengths" -- \
  "$bin/engine-bench" "$model" --min-input 10 --max-input 5 "${small[@]}"
exit $fail
