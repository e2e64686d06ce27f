#!/usr/bin/env bash
# The case study's experiments on the engine's CUDA backend
# (docs/case-study.md), from the perfcc-built engine: which host work the
# GPU waits on, by attribution and by experiment, and where the benchmark's
# time goes.
#  1. Batch-1 decode traced with CUPTI, with CUDA graphs and without
#     (--enforce-eager), and perfctl report's GPU-idle attribution of each.
#  2. Nano-vLLM's protocol traced: perfctl report's kernel table (the trace
#     itself, hundreds of thousands of kernels, is not kept).
#  3. A speed-bump sweep over the host subsystems of a decode-heavy run (64
#     sequences): the scheduler, the block manager, the step's inputs
#     (build_forward_batch, pack_step) and the model runner's step (its
#     upload, graph launch and wait). The window starts after start-up
#     (measured on one plain run), so the curves are the step loop's.
# Everything lands in OUT_DIR: the traces and reports, the sweep's folder,
# answer.txt (the sweep's answer) and summary.txt.
# DEVICE=cpu runs the same on the CPU backend with a tiny model and a small
# workload: a check of this script where there is no GPU (the traces then
# have no GPU records).
# Usage: engine_case_study.sh ENGINE_BENCH_PERFCC ENGINE_MAKE_MODEL PERFCTL
#        SUBSYSTEMS_DIR OUT_DIR        (exit 77: no GPU here)
set -uo pipefail
bench=$(realpath "$1") make_model=$(realpath "$2") perfctl=$(realpath "$3")
sub=$(realpath "$4") out=$5
device=${DEVICE:-cuda}
here=$(cd "$(dirname "$0")" && pwd)
sweepcheck=$here/sweepcheck.py # beside this script in the GPU bundle
[ -f "$sweepcheck" ] || sweepcheck=$here/../lit/perfctl/Inputs/sweepcheck.py
# The sweep's first round is 2 runs per delay and group (about 56 runs of a
# few seconds each on the GPU), then adaptive rounds within the budget: the
# whole step stays well inside one device command's 10 minutes.
budget=${SWEEP_BUDGET:-90s}
repeats=${SWEEP_REPEATS:-2}
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1

# A tiny model first: enough to learn whether there is a GPU (without one,
# the engine says so in one line, exit 2) before writing a 1.2 GB one.
"$make_model" --preset tiny --scale 0.125 --out tiny > /dev/null || exit 1
if ! PERFCC_MODE=off "$bench" tiny --device "$device" --pp 16 --tg 4 \
  --repetitions 1 > probe.txt 2>&1; then
  if grep -q 'no CUDA GPU' probe.txt; then
    echo "skipped: $(head -1 probe.txt)"
    exit 77
  fi
  cat probe.txt
  exit 1
fi
if [ "$device" = cuda ]; then
  "$make_model" --preset qwen3-0.6b --out model > /dev/null || exit 1
  workload=(--num-seqs 64 --min-input 32 --max-input 96 --min-output 256
    --max-output 512 --max-model-len 1024 --max-num-seqs 64)
  runner=cuda_model_runner.targets
  cupti=on
else
  mv tiny model
  workload=(--num-seqs 16 --min-input 16 --max-input 48 --min-output 32
    --max-output 64 --max-model-len 256 --threads 2)
  runner=model_runner.targets
  cupti=off
fi
rm -rf tiny

echo "== batch-1 decode traced, with CUDA graphs and without"
for mode in graphs eager; do
  flag=()
  [ "$mode" = eager ] && flag=(--enforce-eager)
  PERFCC_MODE=trace PERFCC_CUPTI=$cupti \
    PERFCC_OUT=trace-$mode "$bench" model --device "$device" --pp 16 --tg 64 \
    --repetitions 1 --json "${flag[@]}" > bench-$mode.json || exit 1
  trace=$(ls trace-$mode/*.trace.json)
  "$perfctl" report "$trace" > report-$mode.txt &&
    "$perfctl" report --json --top 0 "$trace" > report-$mode.json || exit 1
  echo "-- $mode:"
  cat report-$mode.txt
done

echo "== Nano-vLLM's protocol traced: where its time goes"
protocol=()
[ "$device" = cpu ] && protocol=(--num-seqs 8 --min-input 16 --max-input 64
  --min-output 16 --max-output 32 --max-model-len 256 --threads 2)
PERFCC_MODE=trace PERFCC_CUPTI=$cupti \
  PERFCC_OUT=trace-protocol "$bench" model --device "$device" "${protocol[@]}" \
  --json > bench-protocol.json || exit 1
trace=$(ls trace-protocol/*.trace.json)
"$perfctl" report "$trace" > report-protocol.txt &&
  "$perfctl" report --json --top 0 "$trace" > report-protocol.json || exit 1
cat bench-protocol.json report-protocol.txt
rm -f trace-protocol/*.trace.json

echo "== the host subsystems: a speed-bump sweep"
# Start-up (loading, the profiling pass, graph capture, the warm-up
# request) is kept out of the window: its length is measured on one plain
# run, as the wall time less the timed part. CUPTI stays off in the sweep
# (and so in that run): it makes each graph launch several times longer
# for the host (docs/case-study.md), which would put the tracer's cost on
# the host's side of the experiment.
export PERFCC_CUPTI=off
start=$(date +%s%N)
PERFCC_MODE=summary "$bench" model --device "$device" "${workload[@]}" --json \
  > plain.json || exit 1
end=$(date +%s%N)
warmup_ms=$(python3 -c '
import json, sys
wall_ms = (int(sys.argv[2]) - int(sys.argv[1])) / 1e6
timed_ms = json.load(open(sys.argv[3]))["throughput"]["seconds"] * 1e3
print(int(wall_ms - timed_ms + 0.05 * timed_ms))' "$start" "$end" plain.json) || exit 1
echo "start-up and margin: $warmup_ms ms; timed part: $(python3 -c '
import json, sys; print(json.load(open(sys.argv[1]))["throughput"]["seconds"])' plain.json) s"
"$perfctl" sweep --group scheduler="$sub/scheduler.targets" \
  --group block_manager="$sub/block_manager.targets" \
  --group step_inputs="$sub/step_inputs.targets" \
  --group model_runner="$sub/$runner" \
  --repeats "$repeats" --budget "$budget" --timeout 120 \
  --warmup-ms "$warmup_ms" --progress token \
  --extrapolate 50% --quiet \
  --out sweep -- "$bench" model --device "$device" "${workload[@]}" \
  > answer.txt || { cat answer.txt; exit 1; }
cat answer.txt
python3 "$sweepcheck" summary sweep/sweep.json | tee summary.txt
