#!/usr/bin/env bash
# The engine's goals of issue #4 on the Qwen3-0.6B shape (bf16, random
# weights, 2 threads): llama-bench's pp512 and tg128, decode across 16
# sequences, and a short Nano-vLLM protocol run. Writes the model once under
# BUILD/models. Figures and dates go to docs/engine.md.
# Usage: bench/engine/run_engine_bench.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
model=$build/models/qwen3-0.6b-bf16
if [[ ! -f $model/model.safetensors ]]; then
  "$build/bin/engine-make-model" --preset qwen3-0.6b --out "$model" --force
fi
common=(--threads 2 --max-model-len 1024)
"$build/bin/engine-bench" "$model" --pp 512 --tg 128 -r 3 \
  --max-num-batched-tokens 1024 "${common[@]}"
"$build/bin/engine-bench" "$model" --pp 128 --tg 128 --parallel 16 -r 2 \
  --max-num-batched-tokens 4096 "${common[@]}"
"$build/bin/engine-bench" "$model" --num-seqs 64 --min-input 100 \
  --max-input 512 --min-output 100 --max-output 512 \
  --max-num-batched-tokens 4096 "${common[@]}"
