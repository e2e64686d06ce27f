#!/usr/bin/env python3
"""Checks a virtual-speedup prediction against the real speedup.

  speedupcheck.py OUT/sweep.json GROUP OTHER [options] -- SLOW FAST [ARGS]

Reads GROUP's and OTHER's predicted throughput change from a complete
`perfctl sweep --speedup` (their headline: the largest speedup swept), then
runs SLOW (the program swept) and FAST (a variant whose GROUP really is that
much faster) --runs times each, interleaved, in summary mode, and takes the
median of their first progress point's rate_per_s: the real gain. Prints the
numbers, then one line per check, ending in "yes" or "NO" (for FileCheck):

  GROUP above OTHER by at least --margin points
  prediction within --tolerance points of the real gain
  real and predicted gains above --floor percent

Exits 1 when the sweep.json is not a complete speedup sweep. Standard
library only.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def headline(doc, name):
    for g in doc["analysis"]["groups"]:
        if g["name"] == name:
            h = g["headline"]
            return h["percent"], h["gain_percent"]["value"], g["valid"]
    sys.exit("speedupcheck: no group '%s' in the sweep" % name)


def rate(command, folder):
    """One run of \\p command in summary mode: its first progress rate."""
    shutil.rmtree(folder, ignore_errors=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PERFCC_", "SPEED_BUMP_"))}
    env.update(PERFCC_OUT=folder, PERFCC_MODE="summary")
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    [summary] = glob.glob(os.path.join(folder, "*.summary.json"))
    with open(summary) as f:
        return json.load(f)["progress"][0]["rate_per_s"]


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("sweep")
    p.add_argument("group")
    p.add_argument("other")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--margin", type=float, default=5.0)
    p.add_argument("--tolerance", type=float, default=15.0)
    p.add_argument("--floor", type=float, default=10.0)
    a = p.parse_args(argv[:split])
    slow, fast, *args = argv[split + 1:]

    with open(a.sweep) as f:
        doc = json.load(f)
    if doc.get("status") != "complete" or \
            doc.get("analysis", {}).get("mode") != "speedup":
        sys.exit("speedupcheck: %s is not a complete speedup sweep" % a.sweep)
    percent, predicted, valid = headline(doc, a.group)
    _, other, _ = headline(doc, a.other)

    work = tempfile.mkdtemp(prefix="speedupcheck.")
    rates = {slow: [], fast: []}
    for _ in range(a.runs):
        for program in (slow, fast):
            rates[program].append(rate([program] + args, work))
    shutil.rmtree(work, ignore_errors=True)
    real = 100 * (statistics.median(rates[fast]) /
                  statistics.median(rates[slow]) - 1)

    print("%s predicted %+.1f%% if %d%% faster (%s)" % (
        a.group, predicted, percent, "valid" if valid else "invalid"))
    print("%s predicted %+.1f%% if %d%% faster" % (a.other, other, percent))
    print("real gain %+.1f%% (medians of %d runs: %.4g/s against %.4g/s)" % (
        real, a.runs, statistics.median(rates[fast]),
        statistics.median(rates[slow])))
    checks = [
        ("%s above %s by at least %g points" % (a.group, a.other, a.margin),
         predicted - other >= a.margin),
        ("prediction within %g points of the real gain" % a.tolerance,
         abs(predicted - real) < a.tolerance),
        ("real and predicted gains above %g%%" % a.floor,
         real > a.floor and predicted > a.floor),
    ]
    for text, ok in checks:
        print("%s: %s" % (text, "yes" if ok else "NO"))


if __name__ == "__main__":
    main()
