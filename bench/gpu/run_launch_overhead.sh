#!/usr/bin/env bash
# Host cost per kernel launch, three ways in one run, on one GPU machine:
#   probes off, CUPTI off  (PERFCC_MODE=off)        the baseline
#   probes on,  CUPTI off  (PERFCC_CUPTI=off)       what the probes add
#   probes on,  CUPTI on   (the default)            what CUPTI's records add
# The three runs are interleaved, ROUNDS times (default 3), so a drift of the
# machine over the minute lands on all three alike; each figure is the
# median over the rounds of each run's median. Prints ns per launch for each,
# round by round, and the added cost; exits 77 without a GPU.
# Usage: run_launch_overhead.sh BINARY [OUT_DIR] [ROUNDS]
set -uo pipefail
bin=$1
out=${2:-$(mktemp -d)}
rounds=${3:-3}
mkdir -p "$out"
run() { # name, environment...
  local name=$1; shift
  env PERFCC_OUT="$out/$name" "$@" "$bin" --benchmark_format=json \
      > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  if [ $rc -eq 77 ]; then cat "$out/$name.err" >&2; exit 77; fi
  [ $rc -eq 0 ] || { cat "$out/$name.err" >&2; exit 1; }
}
for r in $(seq "$rounds"); do
  run "baseline.$r" PERFCC_MODE=off PERFCC_CUPTI=off
  run "probes.$r" PERFCC_CUPTI=off
  run "cupti.$r"
done
python3 - "$out" "$rounds" <<'PY'
import json, sys, os, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
def run_median_ns(name):
    doc = json.load(open(os.path.join(out, name + ".json")))
    for b in doc["benchmarks"]:
        if b.get("aggregate_name") == "median":
            return b["real_time"] if b["time_unit"] == "ns" else b["real_time"] * {"us": 1e3, "ms": 1e6}[b["time_unit"]]
    sys.exit("no median in " + name)
def median_ns(name):
    each = [run_median_ns("%s.%d" % (name, r)) for r in range(1, rounds + 1)]
    print("%-8s ns per launch, round by round: %s" % (name, " ".join("%.0f" % v for v in each)))
    return statistics.median(each)
base, probes, cupti = (median_ns(n) for n in ("baseline", "probes", "cupti"))
print("ns per launch: baseline %.0f, with probes %.0f (+%.0f), with probes and CUPTI %.0f (+%.0f over probes)"
      % (base, probes, probes - base, cupti, cupti - probes))
print("slowdown of the launch-bound loop: probes %.1f%%, probes + CUPTI %.1f%%"
      % (100 * (probes / base - 1), 100 * (cupti / base - 1)))
PY
