#!/usr/bin/env python3
"""Checks a merged trace and summary (perfctl merge) against the traces and
summaries merged into them.

  mergecheck.py MERGED.trace.json MERGED.summary.json INPUT.trace.json...

Every input event is in the merged trace (the merge adds one
process_sort_index per process, nothing else); each process's calls per
(thread, function) are the same in both; each process has its own track,
named; the merged summary's calls per function are the inputs' summaries'
sum. Prints "N processes, M calls, every span kept" or what differs.
"""
import collections
import json
import sys


def calls(events):
    out = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "cpu_op":
            out[(e["pid"], e["tid"], e["name"])] += 1
    return out


def main():
    merged_trace, merged_summary, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(merged_trace) as f:
        merged = json.load(f)["traceEvents"]
    expected = collections.Counter()
    events = 0
    summary_calls = collections.Counter()
    pids = set()
    for path in inputs:
        with open(path) as f:
            doc = json.load(f)
        events += len(doc["traceEvents"])
        expected += calls(doc["traceEvents"])
        pids.add(doc["metadata"]["pid"])
        with open(path.replace(".trace.json", ".summary.json")) as f:
            for fn in json.load(f)["functions"]:
                summary_calls[fn["name"]] += fn["calls"]
    ok = True
    added = len(merged) - events
    if added != len(inputs):
        ok = False
        print("the merged trace has %d events, the inputs %d (+%d sort "
              "indexes expected)" % (len(merged), events, len(inputs)))
    got = calls(merged)
    if got != expected:
        ok = False
        print("calls differ: %s" % sorted((got - expected) + (expected - got)))
    named = {e["pid"] for e in merged
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    if not pids <= named:
        ok = False
        print("processes without a name: %s" % sorted(pids - named))
    with open(merged_summary) as f:
        merged_calls = {fn["name"]: fn["calls"]
                        for fn in json.load(f)["functions"]}
    if merged_calls != {k: v for k, v in summary_calls.items()}:
        ok = False
        print("summary calls %s, the inputs' %s" % (merged_calls,
                                                  dict(summary_calls)))
    if ok:
        print("%d processes, %d calls, every span kept" % (
            len(pids), sum(expected.values())))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
