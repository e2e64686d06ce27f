"""The perfcc-built engine records what the toolchain needs: a summary with
the engine's progress points (one `token` per generated token, one
`request_finished` per request), its named threads, and probes on each
subsystem's entry points; a CPU run says nothing of CUPTI; and the plain
build runs without the runtime.

Usage: perfcc_engine_test.py BUILD_DIR GOLDEN_MODEL_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

build, model = sys.argv[1], sys.argv[2]
instrumented = os.path.join(build, "engine-perfcc", "bin", "engine-generate")
plain = os.path.join(build, "bin", "engine-generate")
args = ["--ids", "1 2 3 4 5", "--ids", "9 8 7", "--max-tokens", "6",
        "--temperature", "0", "--ignore-eos", "--output", "ids",
        "--threads", "2", "--max-model-len", "64",
        "--max-num-batched-tokens", "256", "--num-kvcache-blocks", "16",
        "--kvcache-block-size", "16", "--quiet"]

failures = []
def check(cond, what):
    if not cond:
        failures.append(what)

with tempfile.TemporaryDirectory() as out:
    env = dict(os.environ, PERFCC_OUT=out, PERFCC_MODE="summary")
    run = subprocess.run([instrumented, model] + args, env=env,
                         capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, f"perfcc build exited {run.returncode}: {run.stderr}")
    # A CPU run is not a CUDA program, whatever backends the engine has: the
    # runtime must not report CUPTI as unavailable for it (it did while the
    # engine linked the shared CUDA runtime).
    check("CUPTI" not in run.stderr,
          f"a CPU run mentions CUPTI: {run.stderr.strip()}")
    ref = subprocess.run([plain, model] + args, capture_output=True, text=True,
                         timeout=120)
    check(ref.returncode == 0, f"plain build exited {ref.returncode}: {ref.stderr}")
    check(run.stdout == ref.stdout and run.stdout.count("=== ") == 2,
          f"instrumented output {run.stdout!r} != plain {ref.stdout!r}")
    summaries = [f for f in os.listdir(out) if f.endswith(".summary.json")]
    check(len(summaries) == 1, f"summaries written: {summaries}")
    if summaries:
        s = json.load(open(os.path.join(out, summaries[0])))
        progress = {p["name"]: p for p in s.get("progress", [])}
        check(progress.get("token", {}).get("count") == 12,
              f"token progress point: {progress.get('token')}")
        check(progress.get("request_finished", {}).get("count") == 2,
              f"request_finished point: {progress.get('request_finished')}")
        threads = {t["name"] for t in s["threads"]}
        check({"engine-main", "engine-worker-1"} <= threads,
              f"thread names: {threads}")
        names = {f["name"]: f for f in s["functions"]}
        for fn in ["engine::Scheduler::schedule", "engine::CpuModelRunner::run",
                   "engine::sample_batch", "engine::BlockManager::allocate",
                   "engine::matmul"]:
            check(fn in names, f"no probe data for {fn}")
        # 2 prefill steps at most plus 5 decode steps: 6 tokens each.
        steps = names.get("engine::LLM::step", {}).get("calls", 0)
        check(6 <= steps <= 8, f"engine::LLM::step calls: {steps}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
