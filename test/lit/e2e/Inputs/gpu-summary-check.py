#!/usr/bin/env python3
"""Prints a summary's `gpu` object for FileCheck: the CUPTI state, each GPU
record name and launching function with its count (checking that the
statistics are ordered: min <= p50 <= p99 <= max, mean <= max, total = sum
within rounding), then the quality counters. Keys from OutputSchema.h."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from schema import summary as S, trace as T  # noqa: E402


def stats_ok(where, entry):
    d = entry[S.DurationNsStats]
    if not (d[S.Min] <= d[S.P50] <= d[S.P99] <= d[S.Max]
            and d[S.Mean] <= d[S.Max] and d[S.Max] <= d[S.Total]):
        sys.exit("gpu-summary-check: %s: statistics out of order: %r" % (where, d))
    if abs(d[S.Mean] * entry[S.Calls] - d[S.Total]) > entry[S.Calls]:
        sys.exit("gpu-summary-check: %s: mean x calls != total" % where)


doc = json.load(open(sys.argv[1]))
gpu = doc.get(S.Gpu)
if gpu is None:
    sys.exit("gpu-summary-check: no gpu object")
print("cupti=%s" % gpu[T.MetaCupti])
for k in gpu[S.Kernels]:
    stats_ok(k[S.Name], k)
    print("%s %s calls=%d" % (k[S.Kind], k[S.Name], k[S.Calls]))
for l in gpu[S.Launchers]:
    stats_ok(l[S.Function], l)
    print("launcher %s calls=%d" % (l[S.Function], l[S.Calls]))
q = gpu[S.Quality]
print("quality %s=%d %s=%d" % (T.MetaGpuUnmatchedLaunches, q[T.MetaGpuUnmatchedLaunches],
                               T.MetaGpuUnmatchedGpuRecords, q[T.MetaGpuUnmatchedGpuRecords]))
