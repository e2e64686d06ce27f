#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing,
# build perfcc, build the example pipeline with perfcc (a targets file picks
# the functions that get probes), run it, and show where its trace and
# summary went, with the hottest functions; then a short speed-bump sweep on
# a producer/consumer program says which function limits its throughput.
# Usage: scripts/demo.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
scripts/build.sh >/dev/null

out=$root/build/demo-out
rm -rf "$out"
echo "== building examples/pipeline.cpp with perfcc"
build/bin/perfcc -O2 -g -pthread --perf-targets=examples/pipeline.targets \
  examples/pipeline.cpp -o build/examples/pipeline
echo "== running it"
PERFCC_OUT=$out build/examples/pipeline 2000
summary=$(ls "$out"/pipeline.*.summary.json)
trace=$(ls "$out"/pipeline.*.trace.json)
echo "== hottest functions (from $summary)"
/usr/bin/python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{'function':28} {'calls':>7} {'incl ms':>9} {'excl ms':>9} {'p50 us':>8} {'p99 us':>8}")
for f in s["functions"][:6]:
    i, e = f["inclusive_ns"], f["exclusive_ns"]
    print(f"{f['name']:28} {f['calls']:7} {i['total']/1e6:9.2f} {e['total']/1e6:9.2f}"
          f" {i['p50']/1e3:8.1f} {i['p99']/1e3:8.1f}")
PY
echo "== open the trace in https://ui.perfetto.dev, chrome://tracing or speedscope:"
echo "   $trace"

echo "== which code limits throughput? A speed-bump sweep of examples/causal/producer_consumer.cpp"
causal=$root/build/demo-causal
rm -rf "$causal" && mkdir -p "$causal"
build/bin/perfcc -O2 -g -pthread --perf-targets=examples/causal/causal.targets \
  examples/causal/producer_consumer.cpp -o "$causal/producer_consumer"
echo 'causal::produce_item' >"$causal/producer.targets"
echo 'causal::consume_item' >"$causal/consumer.targets"
build/bin/perfctl sweep --group producer="$causal/producer.targets" \
  --group consumer="$causal/consumer.targets" --delays 0,1us,2us,4us,8us \
  --repeats 3 --quiet --out "$causal/sweep" -- "$causal/producer_consumer"
echo "   report: $causal/sweep/report.md, plot: $causal/sweep/plot.svg"

