"""Prints, for each summary of declared-wait.cpp given (undeclared first,
then declared), what the waiter thread paid as a share of pause::works'
total time."""
import json
import sys

for label, path in zip(["undeclared", "declared"], sys.argv[1:]):
    with open(path) as f:
        s = json.load(f)
    works = next(fn for fn in s["functions"] if fn["name"] == "pause::works")
    waiter = next(t for t in s["threads"] if t["name"] == "waiter")
    print("%s: the waiter paid %.2f of the calls" %
          (label, waiter["speedup_paid_ns"] / works["inclusive_ns"]["total"]))
