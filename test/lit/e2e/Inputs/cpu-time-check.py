#!/usr/bin/env python3
"""Usage: cpu-time-check.py SUMMARY TRACE [FOLDED_CPU]. Checks a run of
cpu-time-program.cpp recorded with PERFCC_CPU_TIME=1 and prints one line per
check: the summary's CPU times (cpu::compute computes: CPU at least half its
wall time, a machine busy enough to take more is not a test machine;
cpu::wait waits: CPU under a fifth; cpu::step's own CPU small), every trace
call carries tdur no larger than dur, the trace's tdur sums equal the
summary's CPU totals, and the folded CPU stacks add up to the CPU self
totals. Keys from OutputSchema.h."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from schema import summary as S, trace as T  # noqa: E402

summary = json.load(open(sys.argv[1]))
trace = json.load(open(sys.argv[2]))
fns = {f[S.Name]: f for f in summary[S.Functions]}
print("summary cpu_time", summary[S.CpuTime])


def cpu(name, kind):
    return fns[name][S.CpuNs][kind]


def wall(name, key):
    return fns[name][key][S.Total]


compute = cpu("cpu::compute", S.CpuInclusive) / wall("cpu::compute", S.InclusiveNs)
wait = cpu("cpu::wait", S.CpuInclusive) / wall("cpu::wait", S.InclusiveNs)
step_self = cpu("cpu::step", S.CpuExclusive) / wall("cpu::step", S.InclusiveNs)
print("compute computes", compute >= 0.5)
print("wait waits", wait < 0.2)
print("step's own cpu small", step_self < 0.1)
print("cpu calls", fns["cpu::compute"][S.CpuNs][S.Calls])

calls = [e for e in trace[T.Events] if e.get(T.Phase) == T.PhaseComplete
         and e.get(T.Category) == T.CategoryCpuOp]
print("every call has tdur", all(T.ThreadDur in e for e in calls))
print("tdur within dur", all(e[T.ThreadDur] <= e[T.Dur] for e in calls))
print("trace metadata cpu_time", trace[T.Metadata].get(T.MetaCpuTime))
for name in ("cpu::compute", "cpu::wait"):
    in_trace = sum(e[T.ThreadDur] for e in calls if e[T.Name] == name) * 1000
    in_summary = cpu(name, S.CpuInclusive)
    print(name, "trace equals summary",
          abs(in_trace - in_summary) <= 0.01 * in_summary + 1000)
if len(sys.argv) > 3:
    folded = 0
    for line in open(sys.argv[3]):
        folded += int(line.rsplit(" ", 1)[1])
    self_total = sum(f[S.CpuNs][S.CpuExclusive] for f in fns.values())
    print("folded cpu equals self total",
          abs(folded - self_total) <= 0.01 * self_total + 1000)
