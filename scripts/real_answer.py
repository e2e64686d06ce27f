#!/usr/bin/env python3
"""The real answer: how much faster a program runs when one function does
less work, measured on its real variants, run side by side.

  real_answer.py --progress POINT [--rounds N] [--args ARGS] BASE NAME=VARIANT ...

Runs BASE and every VARIANT (executables built with perfcc, run without an
experiment) in a shuffled order each round, reads each run's throughput at
the progress point from its summary, and prints one JSON object: for each
NAME the variant's gain over BASE in percent (the median over rounds of the
round's variant throughput over the base's), with every run's throughput
beside it.

The truth a causal profiler is checked against is this one, measured on the
same machine at the same time, not a number written down on another: on a
machine whose threads cannot always run side by side (a busy host, a
scheduler that stacks them on one CPU) a function with slack on paper is on
the critical path in fact, and a prediction is right only if it says so.
scripts/ground-truth.py and the ground-truth lit tests both use it.
"""
import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile


def throughput(exe, progress, scratch, args=()):
    """One run's throughput at the progress point, in units per second."""
    shutil.rmtree(scratch, ignore_errors=True)
    env = dict(os.environ, PERFCC_MODE="summary", PERFCC_OUT=scratch)
    for key in list(env):
        if key.startswith(("PERFCC_DELAY", "PERFCC_SPEEDUP", "PERFCC_FREQ")):
            del env[key]
    subprocess.run([exe] + list(args), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [name] = [f for f in os.listdir(scratch) if f.endswith(".summary.json")]
    with open(os.path.join(scratch, name)) as f:
        summary = json.load(f)
    [point] = [p for p in summary["progress"] if p["name"] == progress]
    return point["rate_per_s"]


def own_work_per_call(exe, targets, frequency, scratch, args=()):
    """The selected function's own time per call, in ns, from one run armed
    at zero delay: time less delays and less time blocked on other threads
    (the runtime's work_ns / work_calls), the same measure perfctl's
    --extrapolate P% and --speedup P take P% of."""
    shutil.rmtree(scratch, ignore_errors=True)
    env = dict(os.environ, PERFCC_MODE="summary", PERFCC_OUT=scratch,
               PERFCC_DELAY_TARGETS=targets, PERFCC_DELAY_NS="0",
               PERFCC_FREQUENCY=str(frequency))
    env.pop("PERFCC_SPEEDUP_PERCENT", None)
    subprocess.run([exe] + list(args), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [name] = [f for f in os.listdir(scratch) if f.endswith(".summary.json")]
    with open(os.path.join(scratch, name)) as f:
        summary = json.load(f)
    work = sum(fn["work_ns"] for fn in summary["delay"]["functions"])
    calls = sum(fn["work_calls"] for fn in summary["delay"]["functions"])
    return work / calls


def achieved_less_work(base, variants, targets, frequency, runs, scratch,
                       args=()):
    """How much less own work per call each variant really does than the
    base, in percent: the median over `runs` rounds of each round's ratio,
    every round running the base and the variants armed, in a shuffled
    order. A variant built to do 50% less of a loop does less or more than
    50% less of the whole call: the call has a fixed part (a futex wake-up
    under a lock, the probes' own cost), and the compiler may unroll a
    shorter loop differently. Paired within a round because this VM's CPU
    speed drifts: hot_loop's step() read 114-121 ns a call in three runs
    and 92-94 in the next two, then 113-119 for minutes (2026-11-28), and
    a median of runs made one build after another can fall in a fast spell
    for one build only (the suite once read 25% less work for the variant
    built for 10%, whose calls take 10.5% less in quiet minutes)."""
    builds = [base] + list(variants)
    ratios = {v: [] for v in variants}
    for _ in range(runs):
        order = list(builds)
        random.shuffle(order)
        work = {exe: own_work_per_call(exe, targets, frequency, scratch, args)
                for exe in order}
        for v in variants:
            ratios[v].append(work[v] / work[base])
    return [100 * (1 - statistics.median(ratios[v])) for v in variants]


def measure(base, variants, progress, rounds, scratch, args=()):
    """Every build's throughput over `rounds` shuffled rounds, each run with
    the program arguments `args`: a dict from executable to its list of
    rates."""
    rates = {exe: [] for exe in [base] + list(variants)}
    for _ in range(rounds):
        order = list(rates)
        random.shuffle(order)
        for exe in order:
            rates[exe].append(throughput(exe, progress, scratch, args))
    return rates


def paired_ratios(rates, base, variant):
    """Each round's variant rate over the base's in the same round."""
    return [v / b for v, b in zip(rates[variant], rates[base])]


def gain_percent(rates, base, variant):
    """The median over rounds of each round's ratio, as a gain in percent.
    Paired within a round because this VM's speed drifts for seconds: a
    median of each build's rates on its own can take one build's from a
    slow spell and the other's from a fast one. producer_consumer at 50%
    less consumer work, 200000 items a run, seven rounds: unpaired, +94.8,
    +93.8 and +75.2% in three measurements, the last one's interval 20
    points wide (2026-11-28)."""
    return 100 * (statistics.median(paired_ratios(rates, base, variant)) - 1)


def gain_interval(rates, base, variant, confidence=0.95, resamples=2000,
                  seed=1):
    """The gain's bootstrap interval (percentiles; the rounds resampled,
    each with its pair of runs): how far the real answer itself is known.
    With five rounds a run-to-run noise of a few percent already spans
    several points, and a sign inside the interval is not known."""
    rng = random.Random(seed)
    ratios = paired_ratios(rates, base, variant)
    gains = sorted(
        100 * (statistics.median(rng.choices(ratios, k=len(ratios))) - 1)
        for _ in range(resamples))
    tail = (1 - confidence) / 2
    return [gains[int(tail * (resamples - 1))],
            gains[int((1 - tail) * (resamples - 1))]]


def real_gains(base, variants, progress, rounds, scratch, args=()):
    """The gain of each variant over the base, in percent, in order, and
    each gain's 95% interval ([low, high])."""
    rates = measure(base, variants, progress, rounds, scratch, args)
    return ([gain_percent(rates, base, v) for v in variants],
            [gain_interval(rates, base, v) for v in variants])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--progress", required=True)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--args", default="",
                   help="the programs' arguments, as one shell-quoted string")
    p.add_argument("base")
    p.add_argument("variants", nargs="+", metavar="NAME=VARIANT")
    a = p.parse_args()
    try:
        args = shlex.split(a.args)
    except ValueError as e:
        sys.exit("real_answer.py: --args %r: %s" % (a.args, e))
    named = []
    for spec in a.variants:
        name, sep, exe = spec.partition("=")
        if not sep or not name or not exe:
            sys.exit("real_answer.py: %r: expected NAME=VARIANT" % spec)
        named.append((name, exe))
    random.seed(1)
    scratch = tempfile.mkdtemp(prefix="real-answer.")
    try:
        rates = measure(a.base, [exe for _, exe in named], a.progress,
                        a.rounds, scratch, args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    json.dump({
        "progress": a.progress,
        "rounds": a.rounds,
        "args": args,
        "base_rates": rates[a.base],
        "gains": {name: {"gain_percent": gain_percent(rates, a.base, exe),
                         "interval": gain_interval(rates, a.base, exe),
                         "rates": rates[exe]} for name, exe in named},
    }, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
