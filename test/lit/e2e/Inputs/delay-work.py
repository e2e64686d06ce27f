#!/usr/bin/env python3
"""Usage: delay-work.py SUMMARY STDOUT KEY. Compares a delayed function's own
work per call as the runtime measured it (delay.functions[0].work_ns over
work_calls) with the time per call the program measured under KEY (work_ns
or slept_ns, from its stdout, over the calls the runtime counted): prints
`work per call R of the program's KEY` with R rounded to 0.1."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from schema import summary as S  # noqa: E402

doc = json.load(open(sys.argv[1]))
measured = dict(kv.split("=") for kv in open(sys.argv[2]).read().split())
[f] = doc[S.Delay][S.Functions]
runtime = f[S.WorkNs] / f[S.WorkCalls]
program = int(measured[sys.argv[3]]) / f[S.DelayedCalls]
print("work per call %.1f of the program's %s" % (round(runtime / program, 1),
                                                  sys.argv[3]))
