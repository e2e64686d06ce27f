#!/usr/bin/env python3
"""A stand-in for a program built with perfcc, for testing perfctl sweep.

It reads the speed-bump settings perfctl hands a run (PERFCC_OUT,
PERFCC_DELAY_TARGETS, PERFCC_DELAY_NS, PERFCC_FREQUENCY) and writes the
summary the runtime would (docs/runtime.md: "window", "delay", "progress",
"functions"), with a throughput that follows a model whose right answer is
known. Its probed functions and how a delay in each moves the time per unit
of work:

  consumer  on the critical path:     + calls * delay           (linear)
  producer  off it:                   + 0                       (none)
  half      half hidden:              + 0.5 * calls * delay     (sub-linear)
  short     slack before it matters:  + max(0, calls * delay - slack)
                                                                (threshold)
  main      never delayed by the tests

With PERFCC_SPEEDUP_PERCENT=P (a virtual speedup, Coz's mode) each selected
function's own time (0.4 * base per unit of work) is P% shorter, which
saves, per unit of work:

  consumer  P% of its time, up to --speedup-cap-ns (then another path
            limits)
  half      half of that
  producer, short, main   nothing (off the critical path); producer
            --handoff-gain of its cut, where slowing it down changes nothing
            (a faster call beside a contended mutex saves hand-offs)

and the summary reports what the runtime would: the delay inserted into the
other threads (P% of the selected functions' time), a real window that
much longer than the effective one, the "speedup" object and each progress
point's virtual_rate_per_s. --cuda marks the speedup invalid as the runtime
does when the process loaded a CUDA driver.

Patterns in the targets file are matched with fnmatch against these names
(FILE:FUNC takes FUNC); a pattern matching none of them delays nothing.
--mutex-wait-share F makes armed runs report their threads waiting for a
mutex F of the window; --held-share F each delayed function doing F of its
own work holding one (a consumer that holds the contended mutex, its virtual
speedup capped by --speedup-cap-ns where the mutex stops being the
bottleneck). Options model failures: --exit, --fail-when-delay, --no-progress,
--zero-progress, --runtime-refuses-delays, --no-speedup (an older runtime).
Standard library only.
"""
import argparse
import fnmatch
import json
import os
import random
import sys
import time

# The summary keys, as the runtime writes them (test/lit/schema.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from schema import summary as S  # noqa: E402

FUNCTIONS = ["main", "consumer", "producer", "half", "short"]
CUDA_REASON = ("the process loaded a CUDA driver: a GPU cannot be paused by "
               "delaying CPU threads, so a virtual speedup of host code "
               "predicts gains that do not exist; use speed bumps")


def selected(targets_path):
    """The functions the targets file picks (last matching line decides)."""
    patterns = []
    with open(targets_path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            exclude = line.startswith("!")
            pattern = line[1:] if exclude else line
            if ":" in pattern.replace("::", ""):
                pattern = pattern.rsplit(":", 1)[1]
            patterns.append((exclude, pattern))
    chosen = []
    for name in FUNCTIONS:
        verdict = False
        for exclude, pattern in patterns:
            if fnmatch.fnmatchcase(name, pattern):
                verdict = not exclude
        if verdict:
            chosen.append(name)
    return chosen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--units", type=int, default=2000)
    p.add_argument("--base-ns", type=float, default=100000.0)
    p.add_argument("--calls", type=float, default=1.0)
    p.add_argument("--slack-ns", type=float, default=20000.0)
    p.add_argument("--noise", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0, help="of the noise")
    p.add_argument("--armed-overhead", type=float, default=0.0)
    p.add_argument("--progress-name", default="tokens")
    p.add_argument("--latency-point", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--zero-progress", action="store_true")
    p.add_argument("--exit", type=int, default=0)
    p.add_argument("--fail-when-delay", type=int, default=-1,
                   help="exit 1 when PERFCC_DELAY_NS is this")
    p.add_argument("--print-env", action="store_true",
                   help="print the PERFCC_* and SPEED_BUMP_* settings")
    p.add_argument("--print-affinity", action="store_true",
                   help="print the CPUs it may run on (perfctl --pin)")
    p.add_argument("--runtime-refuses-delays", action="store_true")
    p.add_argument("--sleep", action="store_true",
                   help="really take the modeled time (for --wall-time)")
    p.add_argument("--print-rate", action="store_true",
                   help="print 'tok/s: RATE' lines (for --regex)")
    p.add_argument("--forks", type=int, default=1)
    p.add_argument("--speedup-cap-ns", type=float, default=20000.0,
                   help="the most a consumer speedup saves per unit of work")
    p.add_argument("--cuda", action="store_true",
                   help="a CUDA driver was loaded: the speedup is invalid")
    p.add_argument("--no-speedup", action="store_true",
                   help="a runtime without virtual speedups")
    p.add_argument("--mutex-wait-share", type=float, default=0.0,
                   help="armed runs: the threads waited for a mutex this "
                   "share of the window (summed over threads)")
    p.add_argument("--held-share", type=float, default=None,
                   help="each delayed function reports this share of its own "
                   "work done holding a mutex (and its work)")
    p.add_argument("--handoff-gain", type=float, default=0.0,
                   help="a virtual speedup of producer saves this share of "
                   "its cut (the hand-offs of a mutex a faster call saves), "
                   "where slowing it down changes nothing")
    a = p.parse_args()

    delay_ns = int(os.environ.get("PERFCC_DELAY_NS", "0"))
    targets = os.environ.get("PERFCC_DELAY_TARGETS", "")
    percent = 0 if a.no_speedup else \
        int(os.environ.get("PERFCC_SPEEDUP_PERCENT", "0"))
    if percent and ("PERFCC_DELAY_NS" in os.environ or
                    "PERFCC_FREQUENCY" in os.environ):
        sys.stderr.write("perfcc: PERFCC_SPEEDUP_PERCENT with PERFCC_DELAY_NS "
                         "or PERFCC_FREQUENCY: a virtual speedup and speed "
                         "bumps are two experiments; run them separately\n")
        sys.exit(2)
    if a.runtime_refuses_delays and "PERFCC_DELAY_NS" in os.environ:
        sys.stderr.write("perfcc: PERFCC_DELAY_NS='%d': speed bumps are not "
                         "implemented yet\n" % delay_ns)
        sys.exit(2)
    if a.print_affinity:
        print("cpus=%s" % ",".join(str(c) for c in sorted(os.sched_getaffinity(0))))
    if a.print_env:
        for name in sorted(os.environ):
            if name.startswith(("PERFCC_", "SPEED_BUMP_")):
                print("%s=%s" % (name, os.environ[name]))
    if a.fail_when_delay >= 0 and "PERFCC_DELAY_NS" in os.environ and \
            delay_ns == a.fail_when_delay:
        a.exit = 1
    if a.exit:
        print("working...")
        sys.stderr.write("fake-program: failing on purpose\n")
        sys.exit(a.exit)
    frequency = int(os.environ.get("PERFCC_FREQUENCY", "1"))
    out = os.environ.get("PERFCC_OUT", "./perfcc-out")
    # Noise drawn from the run's folder name (runs/NNNN, in perfctl's seeded
    # order): a sweep with the same --seed sees the same noise every time.
    random.seed("%d/%s" % (a.seed, os.path.basename(out.rstrip("/"))))
    armed = bool(targets)
    delayed = selected(targets) if armed else []

    calls = a.calls
    added = 0.0
    for name in delayed:
        injected = calls / frequency * delay_ns
        if name == "consumer":
            added += injected
        elif name == "half":
            added += 0.5 * injected
        elif name == "short":
            added += max(0.0, injected - a.slack_ns)
    # A virtual speedup: the time it saves on the critical path and the
    # delay it inserts into the other threads, per unit of work.
    own_per_unit = 0.4 * a.base_ns
    saved = inserted = 0.0
    for name in delayed if percent else []:
        cut = percent / 100.0 * own_per_unit
        inserted += cut
        if name == "consumer":
            saved += min(cut, a.speedup_cap_ns)
        elif name == "half":
            saved += 0.5 * cut
        elif name == "producer":
            saved += a.handoff_gain * cut
    per_unit = a.base_ns * (1 + (a.armed_overhead if armed else 0)) + added
    per_unit = (per_unit - saved) * max(0.05, 1 + random.gauss(0, a.noise))
    effective_ns = int(a.units * per_unit)
    per_unit += inserted
    window_ns = int(a.units * per_unit)
    if a.sleep:
        time.sleep(window_ns / 1e9)
    if a.print_rate:
        print("warming up; tok/s: 1.0")
        print("tok/s: %.3f" % (a.units / (window_ns / 1e9)))

    os.makedirs(out, exist_ok=True)
    for k in range(a.forks):
        units = a.units // a.forks + (a.units % a.forks if k == 0 else 0)
        in_window = 0 if a.zero_progress else units
        progress = []
        if not a.no_progress:
            progress.append({S.Name: a.progress_name, S.Kind: S.KindThroughput,
                             S.Count: units, S.CountInWindow: in_window,
                             S.RatePerS: in_window / (window_ns / 1e9)})
        if a.latency_point:
            progress.append({S.Name: "request", S.Kind: S.KindLatency,
                             S.Begins: units, S.Ends: units,
                             S.EndsInWindow: in_window,
                             S.RatePerS: in_window / (window_ns / 1e9),
                             S.MeanLatencyNs: per_unit})
        if percent:
            for point in progress:
                point[S.VirtualRatePerS] = in_window / (effective_ns / 1e9)
        functions, delay_functions = [], []
        total_calls = total_requested = total_delivered = 0
        for name in FUNCTIONS:
            n = 1 if name == "main" else int(units * calls)
            own = 0.4 * a.base_ns / calls
            if name in delayed:
                # A virtual speedup times the calls, it does not delay them.
                hit = 0 if percent else n // frequency
                requested = hit * delay_ns
                delivered = int(requested * 1.01)
                delay_functions.append({
                    S.Name: name, S.CallsInWindow: 0 if percent else n,
                    S.DelayedCalls: hit,
                    S.RequestedNs: requested, S.DeliveredNs: delivered,
                    S.MeanErrorNs: 0.01 * delay_ns,
                    S.WorstErrorNs: 0.05 * delay_ns})
                if a.held_share is not None:
                    delay_functions[-1].update({
                        S.HeldShare: a.held_share,
                        S.WorkNs: int(n * 0.4 * a.base_ns / calls),
                        S.WorkCalls: n})
                total_calls += hit
                total_requested += requested
                total_delivered += delivered
                own += delay_ns / frequency
            incl = int(n * own) if name != "main" else window_ns
            functions.append({S.Name: name, S.Mangled: name,
                              S.File: "/src/fake.cpp", S.Line: 1, S.Calls: n,
                              S.InclusiveNs: {S.Total: incl,
                                               S.Mean: incl // max(n, 1)}})
        summary = {
            S.Version: "0.1.0", S.Program: "fake",
            S.Pid: os.getpid() + k, S.Mode: "summary", S.TraceFile: "",
            S.DurationNs: window_ns + 1000000,
            S.Window: {S.StartNs: 1000, S.EndNs: 1000 + window_ns,
                       S.DurationNs: window_ns},
            S.Delay: {S.Armed: armed, S.DelayNs: delay_ns, S.Frequency: frequency,
                      S.DelayTargets: targets,
                      S.Calibration: {S.ClockReadNs: 8.6,
                                      S.MinDelayNs: 30},
                      S.Functions: delay_functions,
                      S.DelayedCalls: total_calls,
                      S.RequestedNs: total_requested,
                      S.DeliveredNs: total_delivered,
                      S.MutexWaitNs: int(a.mutex_wait_share * window_ns)
                      if armed else 0},
            S.Progress: progress,
            S.Functions: functions,
        }
        if percent:
            summary[S.Speedup] = {
                S.Percent: percent,
                S.InsertedNs: int(a.units * inserted),
                S.PaidNs: int(0.9 * a.units * inserted),
                S.EffectiveDurationNs: effective_ns,
                S.Valid: not a.cuda,
                S.Reason: CUDA_REASON if a.cuda else ""}
        path = os.path.join(out, "fake.%d.summary.json" % (os.getpid() + k))
        with open(path, "w") as f:
            json.dump(summary, f)
    sys.stderr.write("perfcc: wrote %s\n" % out)


if __name__ == "__main__":
    main()
