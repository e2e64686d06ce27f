#!/usr/bin/env bash
# The CUDA example's known answer, on a GPU (ctest label `gpu`; exit 77,
# skipped, where there is no CUDA device). examples/cuda/stalls.cpp runs 50
# iterations; in each, prepare_batch() keeps the GPU idle for 500 us and
# hidden_work() runs 1 ms behind a 2 ms kernel. So:
#  - 50 x 500 us = 25 ms of GPU idle charged to prepare_batch (+-15%: the
#    host's spin and the launch path add a few us per gap);
#  - under 5% of that to hidden_work;
#  - every kernel joined to its launching function, the graph's three to
#    replay_graph, and the 2 ms kernel timed within 5% of 2 ms (it spins on
#    the GPU's own globaltimer);
#  - nothing lost or out of order in metadata.gpu.
# Usage: cuda_stalls_known_answer.sh CUDA_STALLS PERFCTL OUT_DIR
set -uo pipefail
stalls=$1 perfctl=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"
# Is there a GPU? (Probes and CUPTI off: with PERFCC_CUPTI=on a machine
# without a driver is an error, exit 2, rather than a skip.)
PERFCC_MODE=off PERFCC_CUPTI=off "$stalls" 0 > /dev/null 2> "$out/probe"
if [ $? -eq 77 ]; then
  echo "skipped: $(head -1 "$out/probe")"
  exit 77
fi
# PERFCC_CUPTI_RAW keeps CUPTI's buffers too: the fixture the CPU-side
# replay test (CuptiAdapterTest) reads.
PERFCC_OUT="$out/trace" PERFCC_CUPTI=on PERFCC_CUPTI_RAW=1 "$stalls" 50 > "$out/stdout" 2> "$out/stderr"
rc=$?
if [ $rc -ne 0 ]; then
  cat "$out/stderr"
  exit 1
fi
trace=$(ls "$out"/trace/cuda_stalls.*.trace.json)
raw=$(ls "$out"/trace/cuda_stalls.*.cupti.bin 2>/dev/null)
[ -s "$raw" ] || { echo "WRONG: PERFCC_CUPTI_RAW=1 kept no CUPTI buffers"; exit 1; }
"$perfctl" report "$trace" > "$out/report.txt" || exit 1
"$perfctl" report --json "$trace" > "$out/report.json" || exit 1
cat "$out/report.txt"
python3 "$here/check_idle_answer.py" "$out/report.json" \
  --charged cuda_example::prepare_batch=25000000:15 \
  --not-charged 'cuda_example::hidden_work<1250000' \
  --launches cuda_example::launch_step=100 \
  --launches cuda_example::upload=50 \
  --launches cuda_example::replay_graph=3 || exit 1
python3 - "$out/report.json" "$trace" <<'PY' || exit 1
import json, sys
report, trace = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# Demangled with its namespace: "(anonymous namespace)::busy_kernel(float*, ...)".
busy = [k for k in report["gpu"]["kernels"] if "::busy_kernel(" in k["name"]]
mean = busy[0]["duration_ns"]["mean"] if busy else 0
ok = 2.0e6 <= mean <= 2.1e6
print("%s: busy_kernel lasted %.3f ms on average, expected 2 ms to 2.1 ms"
      % ("ok" if ok else "WRONG", mean / 1e6))
gpu = trace["metadata"]["gpu"]
bad = {k: gpu[k] for k in ("unmatched_launches", "unmatched_gpu_records",
       "starts_before_launch", "records_outside_run", "dropped_records",
       "zero_timestamps") if gpu[k]}
print("%s: metadata.gpu %s" % ("ok" if not bad else "WRONG", bad or "clean"))
sys.exit(0 if ok and not bad else 1)
PY
