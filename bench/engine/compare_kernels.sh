#!/usr/bin/env bash
# Decode with the instruction-set level's default one-row kernel against the
# plans measured at load (engine/cpu/gemv_tuning.h), interleaved, at 1 and 2
# threads: tg128, --kernels default against --kernels measure (each run
# measures anew, so the choice's own noise is in the figures).
# Usage: compare_kernels.sh BUILD_DIR MODEL [ROUNDS]
set -euo pipefail
build=$1 model=$2 rounds=${3:-4}
bench=$build/bin/engine-bench
for ((round = 1; round <= rounds; ++round)); do
  for threads in 1 2; do
    for kernels in default measure; do
      line=$("$bench" "$model" --tg 128 -r 2 --threads "$threads" \
        --max-model-len 1024 --max-num-batched-tokens 1024 \
        --kernels "$kernels" --kernel-wisdom none | grep '^tg128')
      echo "round $round, $threads thread(s), --kernels $kernels: $line"
    done
  done
done
