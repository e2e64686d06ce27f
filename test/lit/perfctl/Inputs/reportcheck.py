#!/usr/bin/env python3
"""Prints what a `perfctl report --json` says, one fact a line, for FileCheck.

  reportcheck.py gpu REPORT.json
      per device: window, busy, idle and busy by kind, host waits; per
      stream: busy, idle, its idle breakdown and queue depth; the idle
      charged to host functions; launch delay; kernels and launchers; the
      data-quality counts
  reportcheck.py summary REPORT.json SUMMARY.json
      each function's calls and inclusive and exclusive totals against the
      runtime's summary of the same run (equal calls; totals within the
      nanosecond rounding of each span), then `agree N functions`

Every key is read from the one header that spells it: the report's from
driver/perfctl/report/ReportKeys.h, the summary's from
common/include/perfcc/OutputSchema.h (through test/lit/schema.py).
Exits 1 with a message when the report breaks an invariant of its own
(busy + idle != window, the kinds not adding up to busy).
"""
import json
import os
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "test", "lit"))
import schema  # noqa: E402


def load_keys():
    """ReportKeys.h's constants: `constexpr char Name[] = "text";` and
    `constexpr const char *Name = schema::NS::Other;`."""
    header = os.path.join(ROOT, "driver", "perfctl", "report", "ReportKeys.h")
    keys = {}
    namespaces = {"trace": schema.trace, "summary": schema.summary}
    for line in open(header):
        m = re.match(r'constexpr char (\w+)\[\] = "([^"]*)";', line)
        if m:
            keys[m.group(1)] = m.group(2)
            continue
        m = re.match(r"constexpr const char \*(\w+) = schema::(\w+)::(\w+);",
                     line)
        if m:
            keys[m.group(1)] = getattr(namespaces[m.group(2)], m.group(3))
    if not keys:
        sys.exit("reportcheck: no keys in %s" % header)
    return types.SimpleNamespace(**keys)


K = load_keys()
S = schema.summary


def fail(message):
    print("reportcheck: " + message, file=sys.stderr)
    sys.exit(1)


def name(value):
    return "(none)" if value is None else value


def gpu(report):
    g = report[K.Gpu]
    print("gpu records=%d api_calls=%d devices=%d" %
          (g[K.Records], g[K.ApiCalls], len(g[K.Devices])))
    for d in g[K.Devices]:
        window = d[K.WindowNs][K.Duration]
        kinds = d[K.BusyByKindNs]
        if d[K.BusyNs] + d[K.IdleNs] != window:
            fail("device %d: busy + idle != window" % d[K.Device])
        if kinds[K.Compute] + kinds[K.Copy] + kinds[K.Memset] != d[K.BusyNs]:
            fail("device %d: the kinds do not add up to busy" % d[K.Device])
        print("device %d records=%d window=%d busy=%d idle=%d busy%%=%g "
              "compute=%d copy=%d memset=%d syncs=%d/%d" %
              (d[K.Device], d[K.Records], window, d[K.BusyNs], d[K.IdleNs],
               d[K.BusyPercent], kinds[K.Compute], kinds[K.Copy],
               kinds[K.Memset], d[K.Syncs][K.Count], d[K.Syncs][K.TotalNs]))
        for s in d[K.Streams]:
            b, q = s[K.IdleBreakdown], s[K.QueueDepth]
            print("stream %d records=%d busy=%d idle=%d host_wait=%d/%d "
                  "short=%d/%d other=%d/%d queue_max=%d queue_mean=%g" %
                  (s[K.Stream], s[K.Records], s[K.BusyNs], s[K.IdleNs],
                   b[K.HostWait][K.Count], b[K.HostWait][K.TotalNs],
                   b[K.ShortGap][K.Count], b[K.ShortGap][K.TotalNs],
                   b[K.Other][K.Count], b[K.Other][K.TotalNs],
                   q[K.Max], q[K.Mean]))
        a = d[K.IdleAttribution]
        if a[K.HostWaitNs] + a[K.LaunchLatencyNs] + a[K.UnattributedNs] \
                != a[K.IdleNs] or a[K.IdleNs] != d[K.IdleNs]:
            fail("device %d: the idle time does not add up" % d[K.Device])
        print("idle gaps=%d host_wait=%d/%d latency=%d unattributed=%d/%d" %
              (a[K.Gaps], a[K.HostWaitNs], a[K.HostWaitGaps],
               a[K.LaunchLatencyNs], a[K.UnattributedNs],
               a[K.UnattributedGaps]))
        for f in a[K.Functions]:
            print("charged %s self=%d inclusive=%d self%%=%g" %
                  (name(f[K.Name]), f[K.SelfNs], f[K.InclusiveNs],
                   f[K.SelfPercentOfWindow]))
        for w in a[K.LargestWaits]:
            print("wait %d..%d host_wait=%d latency=%d record=%s stream=%d "
                  "mostly_in=%s" %
                  (w[K.StartNs], w[K.EndNs], w[K.HostWaitNs],
                   w[K.LaunchLatencyNs], w[K.Record], w[K.Stream],
                   name(w[K.MostlyIn])))
        delay = d[K.LaunchDelayNs]
        print("delay count=%d total=%d p50=%d p99=%d max=%d clipped=%d" %
              (delay[K.Count], delay[K.Total], delay[K.P50], delay[K.P99],
               delay[K.Max], delay[K.Clipped]))
    for k in g[K.Kernels]:
        print("kernel %s %s count=%d total=%d" %
              (k[K.Kind], k[K.Name], k[K.Count], k[K.DurationNs][K.Total]))
    for l in g[K.Launchers]:
        print("launcher %s %s count=%d total=%d" %
              (l[K.Launcher], name(l[K.Function]), l[K.Count],
               l[K.DurationNs][K.Total]))
    r = report[K.Quality][K.Reader]
    print("quality without_launch=%d lost_launches=%d captured=%d "
          "before_launch=%d malformed=%d" %
          (r[K.RecordsWithoutLaunch], r[K.LaunchesWithoutRecords],
           r[K.CapturedLaunches], r[K.RecordsBeforeLaunch],
           r[K.MalformedEvents]))


def summary(report, summary_doc):
    host = report[K.Host]
    if host[K.FunctionCount] != len(host[K.Functions]):
        fail("the report lists %d of %d functions: run it with --top 0" %
             (len(host[K.Functions]), host[K.FunctionCount]))
    ours = {f[K.Name]: f for f in host[K.Functions]}
    theirs = {f[S.Name]: f for f in summary_doc[S.Functions]}
    if sorted(ours) != sorted(theirs):
        fail("functions differ: report %s, summary %s" %
             (sorted(ours), sorted(theirs)))
    for fn in sorted(ours):
        a, b = ours[fn], theirs[fn]
        if a[K.Calls] != b[S.Calls]:
            fail("%s: %d calls in the report, %d in the summary" %
                 (fn, a[K.Calls], b[S.Calls]))
        # The trace holds each span's ends in nanoseconds, the summary its
        # totals in clock ticks: each call may round apart by a nanosecond
        # at either end, and an exclusive time at its children's too.
        # The children's calls are not in the report per parent: bound
        # them by every call in the run.
        slack = 2 * a[K.Calls] + 2
        all_calls = sum(f[K.Calls] for f in host[K.Functions])
        for ours_key, theirs_key, bound in (
                (K.InclusiveNs, S.InclusiveNs, slack),
                (K.ExclusiveNs, S.ExclusiveNs, slack + 2 * all_calls)):
            x, y = a[ours_key][K.Total], b[theirs_key][S.Total]
            if abs(x - y) > bound:
                fail("%s: %s total %d in the report, %d in the summary" %
                     (fn, ours_key, x, y))
        print("function %s calls=%d" % (fn, a[K.Calls]))
    print("agree %d functions" % len(ours))


def main(argv):
    if len(argv) < 3 or argv[1] not in ("gpu", "summary"):
        sys.exit(__doc__)
    report = json.load(open(argv[2]))
    if argv[1] == "gpu":
        gpu(report)
    else:
        if len(argv) < 4:
            sys.exit(__doc__)
        summary(report, json.load(open(argv[3])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
