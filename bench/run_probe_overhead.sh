#!/usr/bin/env bash
# Runs the probe-overhead benchmark in its four run-time configurations and
# prints ns per call and the ratios the goals are stated in (docs/benchmarks.md).
# Usage: bench/run_probe_overhead.sh <build-dir>   (ctest -L bench runs it)
set -euo pipefail
build=${1:?usage: run_probe_overhead.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
exe=$build/bench/probe_overhead
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # name, env...
  local name=$1; shift
  env "$@" PERFCC_OUT="$out/perfcc" "$exe" --benchmark_repetitions=5 \
    --benchmark_min_time=0.2 --benchmark_report_aggregates_only=true \
    --benchmark_format=json >"$out/$name.json" 2>"$out/$name.err" ||
    { cat "$out/$name.err" >&2; exit 1; }
}
# Keep the trace small: the writer drops (and counts) past 64 MiB of spans;
# the probes cost the same.
run disabled PERFCC_TARGETS="$here/probe_overhead.disabled"
run summary PERFCC_MODE=summary
run trace PERFCC_MODE=trace PERFCC_TRACE_MAX_MB=64
# Opt-in CPU time per call: every probe also reads the thread's CPU clock
# (a system call), so its cost is that clock's, shown against it.
run cputime PERFCC_MODE=summary PERFCC_CPU_TIME=1

/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def medians(name):
    data = json.load(open(f"{out}/{name}.json"))
    return {b["run_name"]: b["real_time"] for b in data["benchmarks"]
            if b.get("aggregate_name") == "median"}
print(f"{'run-time config':16} {'plain':>8} {'instr.':>8} {'2x rdtsc':>9} {'instr-plain':>12} {'pair/2clk':>10}")
for name in ("disabled", "summary", "trace", "cputime"):
    m = medians(name)
    plain, inst, tsc = m["BM_PlainCall"], m["BM_InstrumentedCall"], m["BM_TwoRdtsc"]
    print(f"{name:16} {plain:8.2f} {inst:8.2f} {tsc:9.2f} {inst-plain:12.2f} {(inst-plain)/tsc:10.2f}")
print()
print(f"{'beside a mutex':16} {'plain':>8} {'instr.':>8} {'added':>9}")
for name in ("disabled", "summary", "trace"):
    m = medians(name)
    plain, inst = m["BM_PlainCallBesideMutex"], m["BM_InstrumentedCallBesideMutex"]
    print(f"{name:16} {plain:8.2f} {inst:8.2f} {inst-plain:9.2f}")
print("ns per call (medians of 5 repetitions); pair/2clk = added cost of an")
print("enter/exit pair over two raw rdtsc reads measured in the same run;")
print("cputime is summary mode with PERFCC_CPU_TIME=1 (two more clock reads,")
print("CLOCK_THREAD_CPUTIME_ID: a system call each). Beside a mutex: each")
print("call followed by an uncontended lock and unlock, as in real code.")
PY
