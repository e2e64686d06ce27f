#!/usr/bin/env bash
# The sweep's answer on a real GPU program against the truth of its real
# variants (ctest label `gpu`; exit 77, skipped, without a CUDA device).
# examples/cuda/stalls.cpp, 200 iterations: prepare_batch (500 us, the GPU
# idle) is serial with the GPU; hidden_work (1 ms) runs behind a 2 ms kernel
# with about 1 ms of slack. The variants doing half the work measure what
# speeding each up really buys (prepare_batch: about +10%, hidden_work:
# nothing); the speed-bump sweep must call prepare_batch linear and predict
# its gain at 50% faster within 3 points of the real one, and must not call
# hidden_work linear (threshold with slack, or none). Virtual speedups are
# refused for GPU programs (a GPU cannot be paused), so bumps alone.
# Usage: cuda_causal_ground_truth.sh CUDA_STALLS PERFCTL OUT_DIR
set -uo pipefail
stalls=$(realpath "$1") perfctl=$(realpath "$2") out=$3
here=$(cd "$(dirname "$0")" && pwd)
# Beside this script in the GPU bundle; in the source tree, where they live.
real_answer=$here/real_answer.py sweepcheck=$here/sweepcheck.py
[ -f "$real_answer" ] || real_answer=$here/../../scripts/real_answer.py
[ -f "$sweepcheck" ] || sweepcheck=$here/../lit/perfctl/Inputs/sweepcheck.py
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
PERFCC_MODE=off PERFCC_CUPTI=off "$stalls" 0 > /dev/null 2> probe
if [ $? -eq 77 ]; then
  echo "skipped: $(head -1 probe)"
  exit 77
fi
variant() { # name, prepare us, hidden us
  printf '#!/bin/sh\nexec "%s" 200 %s %s\n' "$stalls" "$2" "$3" > "$1"
  chmod +x "$1"
}
variant base 500 1000
variant prepare50 250 1000
variant hidden50 500 500
echo 'cuda_example::prepare_batch' > prepare.targets
echo 'cuda_example::hidden_work' > hidden.targets
python3 "$real_answer" --progress iterations --rounds 5 ./base \
  prepare=./prepare50 hidden=./hidden50 > real.json || exit 1
"$perfctl" sweep --group prepare=prepare.targets --group hidden=hidden.targets \
  --budget 60s --extrapolate 50% --progress iterations --quiet --out sweep \
  -- ./base > answer.txt || { cat answer.txt; exit 1; }
cat answer.txt
python3 "$sweepcheck" summary sweep/sweep.json | tee summary.txt
python3 "$sweepcheck" against-real sweep/sweep.json 50 real.json | tee against.txt
python3 - real.json sweep/sweep.json <<'PY'
import json, sys
real = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
groups = {g["name"]: g for g in doc["analysis"]["groups"]}
ok = True
def say(good, text):
    global ok
    ok &= good
    print("%s: %s" % ("ok" if good else "WRONG", text))
gain = {n: real["gains"][n]["gain_percent"] for n in ("prepare", "hidden")}
say(gain["prepare"] > 5, "prepare_batch at half the work: real %+.1f%%" % gain["prepare"])
say(abs(gain["hidden"]) < 2, "hidden_work at half the work: real %+.1f%%" % gain["hidden"])
say(groups["prepare"]["shape"] == "linear", "prepare_batch: %s" % groups["prepare"]["shape"])
say(groups["hidden"]["shape"] != "linear", "hidden_work: %s" % groups["hidden"]["shape"])
def predicted(name):
    for e in groups[name].get("extrapolation", []):
        if e.get("percent") == 50 and e["valid"]:
            return e["gain_percent"]["value"]
    return None
p = predicted("prepare")
say(p is not None and abs(p - gain["prepare"]) <= 3,
    "prepare_batch 50%% faster: predicted %s, real %+.1f%% (within 3 points)"
    % ("-" if p is None else "%+.1f%%" % p, gain["prepare"]))
sys.exit(0 if ok else 1)
PY
