#!/usr/bin/env python3
"""Checks perfctl export's outputs against the runtime's own summary.

  exportcheck.py folded SUMMARY.json FOLDED
      each function's self time summed over the folded lines (its frame
      last) against the summary's exclusive_ns total, and each line's form
  exportcheck.py callgrind SUMMARY.json ANNOTATE.txt
      callgrind_annotate's program total and per-function self times (its
      function list, run with --threshold=100 so that it lists every
      function) against the summary's exclusive_ns totals
  exportcheck.py pprof SUMMARY.json TOP.txt
      go tool pprof's -top (-unit=ns -nodefraction=0): each function's flat
      time against the summary's exclusive_ns total
  exportcheck.py pprof-calls SUMMARY.json TOP.txt
      the same with -sample_index=calls: flat calls against the summary's
      calls, exactly

Prints one line per function, "NAME self equal" or the difference, then
"total equal". The trace stores each call's start and end rounded to the
nanosecond, the summary their difference: a call's time is within 2 ns of
the summary's, and a self time (the call's time less its callees') within
2 ns per call of the function plus 2 ns per call of a callee, bounded here
by every call the program made. The total within 2 ns a call.
"""
import json
import re
import sys


def summary_self(path):
    with open(path) as f:
        doc = json.load(f)
    return {fn["name"]: (fn["exclusive_ns"]["total"], fn["calls"])
            for fn in doc["functions"] if fn["calls"]}


def pprof_flat(text):
    """Each function's flat value in pprof's -top table."""
    flat = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\s*(\d+)(?:ns)?\s+[\d.]+%\s+[\d.]+%\s+"
                         r"\d+(?:ns)?\s+[\d.]+%\s+(\S.*)", line)
        if m:
            flat[m.group(2)] = int(m.group(1))
    return flat


def compare(expected, got, label):
    ok = True
    every_call = sum(c for _, c in expected.values())
    for name in sorted(expected):
        want, calls = expected[name]
        have = got.get(name)
        if have is not None and abs(have - want) <= 2 * (calls + every_call):
            print("%s self equal" % name)
        else:
            ok = False
            print("%s self %s, summary %d" % (name, have, want))
    for name in sorted(set(got) - set(expected)):
        ok = False
        print("%s in the %s only" % (name, label))
    total = sum(want for want, _ in expected.values())
    calls = sum(c for _, c in expected.values())
    have = sum(got.values())
    print("total %s" % ("equal" if abs(have - total) <= 2 * calls else
                        "%d, summary %d" % (have, total)))
    return ok


def main():
    what, summary, other = sys.argv[1:4]
    expected = summary_self(summary)
    got = {}
    with open(other) as f:
        text = f.read()
    if what == "folded":
        for line in text.splitlines():
            m = re.fullmatch(r"([^;]+(?:;[^;]+)+) (\d+)", line)
            if not m:
                print("malformed line: %r" % line)
                return 1
            frame = m.group(1).split(";")[-1]
            got[frame] = got.get(frame, 0) + int(m.group(2))
        return 0 if compare(expected, got, "folded stacks") else 1
    if what == "pprof":
        return 0 if compare(expected, pprof_flat(text), "pprof profile") else 1
    if what == "pprof-calls":
        flat, ok = pprof_flat(text), True
        for name in sorted(expected):
            calls = expected[name][1]
            ok = ok and flat.get(name) == calls
            print("%s calls %s" % (name, "equal" if flat.get(name) == calls
                                   else "%s, summary %d" % (flat.get(name),
                                                            calls)))
        return 0 if ok and set(flat) == set(expected) else 1
    program = None
    for line in text.splitlines():
        if line.startswith("-- Auto-annotated source"):
            break  # the function list ends here
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$", line)
        if not m:
            continue
        value, where = int(m.group(1).replace(",", "")), m.group(2)
        if where == "PROGRAM TOTALS":
            program = value
        elif ":" in where and program is not None and not where.startswith("*"):
            got[where.rsplit(":", 1)[1]] = value
    ok = compare(expected, got, "callgrind profile")
    total = sum(want for want, _ in expected.values())
    calls = sum(c for _, c in expected.values())
    print("program totals %s" % ("equal" if program is not None and
                                 abs(program - total) <= 2 * calls else
                                 "%s, summary %d" % (program, total)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
