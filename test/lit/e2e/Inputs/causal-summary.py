"""Usage: causal-summary.py SUMMARY. Prints a ground-truth program's
summary in one line: its progress point's count and the causal:: functions
that ran (calls > 0), sorted. Keys from OutputSchema.h."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from schema import summary as S  # noqa: E402

with open(sys.argv[1]) as f:
    s = json.load(f)
points = {p[S.Name]: p[S.Count] for p in s[S.Progress]}
ran = sorted(fn[S.Name] for fn in s[S.Functions] if fn[S.Calls] > 0)
print("%s: items %s, ran %s" % (s[S.Program], points.get("items"), " ".join(ran)))
