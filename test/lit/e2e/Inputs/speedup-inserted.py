#!/usr/bin/env python3
"""Usage: speedup-inserted.py SUMMARY STDOUT KEY. Compares the delay a
virtual speedup inserted (summary.speedup.inserted_ns) with PERCENT% of the
time the program measured under KEY (work_ns, blocked_ns or slept_ns, from
its stdout): prints `inserted R of the expected` with R rounded to 0.1, and
the blocked time's ratio the same way for contrast."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from schema import summary as S  # noqa: E402

doc = json.load(open(sys.argv[1]))
measured = dict(kv.split("=") for kv in open(sys.argv[2]).read().split())
speedup = doc[S.Speedup]
share = speedup[S.Percent] / 100.0
inserted = speedup[S.InsertedNs]
expected = share * int(measured[sys.argv[3]])
print("inserted %.1f of the expected" % round(inserted / expected, 1))
