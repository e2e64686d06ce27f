#!/usr/bin/env python3
"""Stress runs of the runtime, with exact answers and their figures.

Builds test/stress/'s programs with perfcc and runs each in the given mode:
64 threads with exceptions and longjmp mixed into their calls, 10,000
short-lived threads, an instrumented library opened and closed in a loop,
forks from a program whose threads are busy in probes, and SIGTERM or
perf_flush() arriving while 8 threads are inside probes. Each program
prints how many calls of each function it made; the run's summary must
count exactly those (every call counted once, nothing dropped, no unmatched
exit), the frames longjmp skipped must be counted as abandoned, each forked
child's files must count its own calls and none of its parent's, and in
trace mode the trace must be valid (test/lit/tracecheck.py) and hold as many
spans as the summary calls. A run cut by a signal or a flush cannot know its
count: its trace and summary must still be whole and agree. Prints one line
of figures a run (wall time, peak memory, spans, drops) and exits 1 on the
first wrong count.

Usage: scripts/stress.py [--size ci|full] [--mode trace|summary|both]
                         [--out DIR] [--bin DIR]
  ci:   64 threads x 1,000 rounds, 10,000 threads x 10 calls, 200 dlopen
        loops, 20 forks from 2 busy threads, a signal after 200 ms
  full: 64 threads x 1,000,000 rounds (64M outer calls, 320M in all; in
        trace mode 20,000 rounds, 6.4M calls: the full count would be 10 GB
        of spans, past PERFCC_TRACE_MAX_MB by design), 10,000 threads x 100
        calls, 2,000 dlopen loops, 200 forks from 4 busy threads, a signal
        after 1 s
Needs a build (scripts/build.sh); --bin names its bin/ (default build/bin).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACE_ROUNDS = 20000  # the most rounds a trace-mode run of 64 threads makes
STRESS = os.path.join(ROOT, "test", "stress")
TRACECHECK = os.path.join(ROOT, "test", "lit", "tracecheck.py")
SIZES = {
    "ci": {"threads": ["64", "1000"], "churn": ["10000", "10"],
           "dlopen": ["200", "100"], "fork": ["2", "20", "10000"],
           "signal": ["8", "200"]},
    "full": {"threads": ["64", "1000000"], "churn": ["10000", "100"],
             "dlopen": ["2000", "100"], "fork": ["4", "200", "10000"],
             "signal": ["8", "1000"]},
}


def build(out, bin_dir):
    perfcc = [os.path.join(bin_dir, "perfcc"),
              "--perf-targets=" + os.path.join(STRESS, "stress.targets")]
    exes = {}
    for name, extra in [("threads_exceptions_longjmp", ["-pthread"]),
                        ("thread_churn", ["-pthread"]),
                        ("dlopen_loop", ["-ldl"]),
                        ("fork_threads", ["-pthread"]),
                        ("signal_storm", ["-pthread"])]:
        exes[name] = os.path.join(out, name)
        subprocess.run(perfcc + ["-O2", "-g"] + extra +
                       [os.path.join(STRESS, name + ".cpp"), "-o",
                        exes[name]], check=True)
    exes["plugin"] = os.path.join(out, "libdlopen_plugin.so")
    subprocess.run(perfcc + ["-O2", "-g", "-shared", "-fPIC",
                    os.path.join(STRESS, "dlopen_plugin.cpp"), "-o",
                    exes["plugin"]], check=True)
    return exes


def fail(message):
    print("stress: " + message)
    sys.exit(1)


# Runs argv and writes its exit status, CPU time and peak memory to the file
# named first. Started from a fresh, small interpreter: Linux carries a
# process's peak memory across fork and exec, so a program forked from this
# script (which has read large summaries) would report this script's peak.
MEASURE = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    json.dump({"status": os.waitstatus_to_exitcode(status),
               "cpu_s": usage.ru_utime + usage.ru_stime,
               "peak_rss_mb": usage.ru_maxrss / 1024}, f)
"""


def run(label, argv, mode, out, status=0):
    """Runs one program, which must exit with \p status (a negative one: that
    signal); returns its printed counts, summary, trace path and figures."""
    slug = "".join(c if c.isalnum() else "-" for c in label)
    folder = os.path.join(out, slug + "-" + mode)
    shutil.rmtree(folder, ignore_errors=True)
    env = dict(os.environ, PERFCC_OUT=folder, PERFCC_MODE=mode)
    measured = os.path.join(out, "measured.json")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", MEASURE, measured] + argv,
                          env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    with open(measured) as f:
        usage = json.load(f)
    printed, said = done.stdout, done.stderr.strip()
    if usage["status"] != status:
        fail("%s (%s): exit status %d, expected %d: %s" % (
            label, mode, usage["status"], status, said))
    words = printed.split()
    counts = {words[i]: int(words[i + 1])
              for i in range(0, len(words) - 1, 2)}
    figures = {"wall_s": wall, "cpu_s": usage["cpu_s"],
               "peak_rss_mb": usage["peak_rss_mb"], "stderr": said,
               "folder": folder}
    if "pid" in counts:
        # Forked children write files of their own: the parent's by its pid.
        pid = counts.pop("pid")
        path = os.path.join(folder, "%s.%d.summary.json" % (
            os.path.basename(argv[0]), pid))
        trace = path.replace(".summary.json", ".trace.json")
        with open(path) as f:
            summary = json.load(f)
        return counts, summary, trace if os.path.exists(trace) else None, \
            figures
    [path] = glob.glob(os.path.join(folder, "*.summary.json"))
    with open(path) as f:
        summary = json.load(f)
    traces = glob.glob(os.path.join(folder, "*.trace.json"))
    return counts, summary, traces[0] if traces else None, figures


def check(label, mode, counts, summary, trace, figures, abandoned=0,
          exact=True, quiet=False):
    """Checks a run's summary (and trace) against what it printed; with
    \p exact False (a run cut by a signal or a flush) only that its files
    are whole and agree."""
    calls = {f["name"].split("::")[-1]: f["calls"]
             for f in summary["functions"]}
    for name, expected in counts.items() if exact else ():
        if name == "work":
            continue  # the program's own tally, not a function
        short = name.split("::")[-1]
        if calls.get(short, 0) != expected:
            fail("%s (%s): %s made %d calls, the summary counts %s" % (
                label, mode, name, expected, calls.get(short)))
    meta = summary["dropped"]
    for key in ("spans", "depth_overflows", "unmatched_exits"):
        if meta[key] != 0:
            fail("%s (%s): %s = %d" % (label, mode, key, meta[key]))
    if meta["abandoned_frames"] != abandoned:
        fail("%s (%s): %d frames abandoned by longjmp, the summary counts %d"
             % (label, mode, abandoned, meta["abandoned_frames"]))
    spans = sum(calls.values())
    if trace:
        done = subprocess.run([sys.executable, TRACECHECK, "trace",
                               "--collapse", trace], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            fail("%s (%s): the trace is not valid: %s" % (
                label, mode, done.stdout.strip()[:500]))
        first = done.stdout.split("\n")[0]
        # "trace: N spans, T threads, dropped=0"
        if not first.startswith("trace: %d spans," % spans):
            fail("%s (%s): the summary counts %d calls, the trace says '%s'"
                 % (label, mode, spans, first))
        figures["trace_mb"] = os.path.getsize(trace) / 2**20
    if quiet:
        return spans
    print("%-34s %-7s %11d calls  wall %6.2f s  cpu %6.2f s  peak %6.0f MB"
          "%s  dropped 0" % (
              label, mode, spans, figures["wall_s"], figures["cpu_s"],
              figures["peak_rss_mb"],
              "  trace %5.0f MB" % figures["trace_mb"] if trace else ""))
    return spans


def check_children(label, mode, parent, folder, children, calls):
    """Each forked child's files: its own calls, none of its parent's."""
    paths = [p for p in glob.glob(os.path.join(folder, "*.summary.json"))
             if p != parent]
    if len(paths) != children:
        fail("%s (%s): %d children, %d child summaries" % (
            label, mode, children, len(paths)))
    for path in paths:
        with open(path) as f:
            summary = json.load(f)
        trace = path.replace(".summary.json", ".trace.json")
        check(label + " (a child)", mode, {"in_child": calls, "busy": 0},
              summary, trace if mode == "trace" else None, {}, quiet=True)


# What each scenario stresses: exceptions and longjmp across 64 threads,
# thread churn, dlopen/dlclose of an instrumented library, fork from a
# multi-threaded program, SIGTERM and perf_flush() arriving during probes.
SCENARIOS = ["threads", "churn", "dlopen", "fork", "signal"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", choices=SIZES, default="ci")
    p.add_argument("--mode", choices=["trace", "summary", "both"],
                   default="both")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "stress"))
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    p.add_argument("--scenarios", default=",".join(SCENARIOS),
                   help="comma-separated, of: " + ", ".join(SCENARIOS))
    a = p.parse_args()
    chosen = a.scenarios.split(",")
    for name in chosen:
        if name not in SCENARIOS:
            p.error("--scenarios: %r: expected some of %s"
                    % (name, ", ".join(SCENARIOS)))
    os.makedirs(a.out, exist_ok=True)
    exes = build(a.out, a.bin)
    size = SIZES[a.size]
    modes = ["trace", "summary"] if a.mode == "both" else [a.mode]
    for mode in modes:
        if "threads" in chosen:
            threads, rounds = map(int, size["threads"])
            if mode == "trace":
                rounds = min(rounds, TRACE_ROUNDS)
            counts, summary, trace, fig = run(
                "64 threads, throw, longjmp",
                [exes["threads_exceptions_longjmp"], str(threads), str(rounds)],
                mode, a.out)
            # Rounds that longjmp (a multiple of 11, not of 7) leave middle
            # and leaf behind.
            skips = rounds // 11 - rounds // 77
            check("64 threads, throw, longjmp", mode, counts, summary, trace,
                  fig, abandoned=2 * threads * skips)
        if "churn" in chosen:
            counts, summary, trace, fig = run(
                "10,000 short-lived threads",
                [exes["thread_churn"]] + size["churn"], mode, a.out)
            check("10,000 short-lived threads", mode, counts, summary, trace,
                  fig)
        if "dlopen" in chosen:
            counts, summary, trace, fig = run(
                "dlopen/dlclose loop",
                [exes["dlopen_loop"], exes["plugin"]] + size["dlopen"], mode,
                a.out)
            check("dlopen/dlclose loop", mode, counts, summary, trace, fig)
        if "fork" in chosen:
            workers, children, calls = map(int, size["fork"])
            label = "%d forks, %d busy threads" % (children, workers)
            counts, summary, trace, fig = run(
                label, [exes["fork_threads"]] + size["fork"], mode, a.out)
            check(label, mode, counts, summary, trace, fig)
            parent = glob.glob(os.path.join(
                fig["folder"],
                "fork_threads.%d.summary.json" % summary["pid"]))[0]
            check_children(label, mode, parent, fig["folder"], children,
                           calls)
        for how, status in [("term", -15), ("flush", 0)]:
            if "signal" not in chosen:
                break
            label = "%s, 8 threads in probes" % (
                "SIGTERM" if how == "term" else "perf_flush()")
            counts, summary, trace, fig = run(
                label, [exes["signal_storm"]] + size["signal"] + [how], mode,
                a.out, status=status)
            check(label, mode, {}, summary, trace, fig, exact=False)
    print("stress: every count exact")


if __name__ == "__main__":
    main()
