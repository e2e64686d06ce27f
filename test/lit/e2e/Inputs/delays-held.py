#!/usr/bin/env python3
"""Usage: delays-held.py TRACE. Reads a trace's speed bumps (`delay` spans)
and checks that those the runtime says it paid holding a mutex
(args.holding) never overlap in time across threads: they cannot, if each
was paid under the one mutex the threads share. Prints `held delays N, overlapping 0` (N > 0 expected), exits 1 on
any overlap. Keys from OutputSchema.h."""
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from schema import trace as T  # noqa: E402

path = sys.argv[1]
doc = json.load(open(path), parse_float=Decimal)
spans = []
for e in doc[T.Events]:
    if e.get(T.Phase) == T.PhaseComplete and e.get(T.Category) == T.CategoryDelay \
            and e[T.Args].get(T.ArgHolding) is True:
        start = Decimal(e[T.Ts]) * 1000
        spans.append((start, start + Decimal(e[T.Dur]) * 1000, e[T.Tid]))
spans.sort()
overlapping = 0
for (s1, e1, t1), (s2, e2, t2) in zip(spans, spans[1:]):
    if s2 < e1 and t1 != t2:
        overlapping += 1
print("held delays %d, overlapping %d" % (len(spans), overlapping))
sys.exit(1 if overlapping or not spans else 0)
