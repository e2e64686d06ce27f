#!/usr/bin/env python3
"""tracecheck: validate perfcc's output files and print them for FileCheck.

Usage (lit substitution %tracecheck):
  tracecheck.py trace [--thread-name-only] [--max-depth N] [--collapse]
                      [--metadata] FILE...
  tracecheck.py summary [--threads] [--strict] FILE...
  tracecheck.py files DIR

trace    Validates a Chrome trace written by libperfrt.so (JSON object form
         with traceEvents and metadata; every complete event has name, cat,
         pid, tid, ts, dur >= 0, and a location: a cpu_op's function in
         metadata.functions with its file and line (or, in older traces,
         args.file and args.line); a `delay` event: args.function and
         args.requested_ns; the spans of each
         thread nest properly; every thread with spans has a thread_name and
         every process a process_name event), then prints a deterministic view:

           trace: N spans, M threads, dropped=D
           thread NAME tid=PID          (the main thread: tid == pid)
             outer
               inner [unwind]
           thread NAME tid=T1           (other threads, numbered in order)
             ...

         Threads are ordered by the start of their first span, spans by start
         (2 spaces per depth). Span flags from args: [unwind], [abandoned],
         [unfinished].
           --thread-name-only  print `thread NAME` without the tid
           --max-depth N       print spans of depth < N only (0 = top level)
           --collapse          runs of identical consecutive sibling subtrees
                               print once, as `name xN`
           --metadata          after the first line, print the metadata
                               counters: `metadata dropped_spans=.. ...`
summary  Validates a summary JSON: functions with name, calls, inclusive_ns and
         exclusive_ns each with total/mean/p50/p99/max; per-thread entries
         whose calls add up to the function's; the top-level threads' calls
         adding up to all functions' calls; exclusive <= inclusive; p50 <= p99
         <= max (see --strict); mean <= max <= total. A merged summary
         (perfctl merge) also: each function's processes[] adding up to
         its calls, totals and maximum, and no percentiles where several
         processes made its calls (a union's cannot be had). Prints
         `function NAME calls=N` sorted by name, then
           dropped spans=.. depth_overflows=.. unmatched_exits=.. abandoned_frames=..
           --threads           also print `thread NAME calls=N` for each thread
                               (sorted), before the dropped line
           --strict            percentiles may not exceed max at all (by
                               default they may by the histogram's documented
                               error, 1/16 of the value)
gpu      Validates a trace with GPU activity: everything `trace` checks
         (CUDA API calls nest with the spans of their thread, GPU records
         nest on their rows), every flow has exactly one start, on a CUDA
         API call, and one end, bound to a GPU record of the same
         correlation, ids unique; metadata.gpu has every counter. Prints
           gpu: N runtime calls, N driver calls, N kernels, ... N flows
           metadata gpu cupti=STATE records=.. dropped_records=.. ...
           api NAME in FUNCTION [flags] xCOUNT
           CATEGORY NAME stream=S [launched_by=F] [captured_by=F] xCOUNT
         (one line per distinct API call, by the instrumented call its
         External id joins it to, then per distinct GPU record; sorted).
files    Lists DIR's *.trace.json and *.summary.json, sorted, with the pid in
         `<program>.<pid>.<kind>.json` printed as PID; checks that the pid in
         the name is the pid recorded inside the file.

A trace or summary recovered from a spill (`recovered` in its metadata, or
in the summary) has no dropped counters: they print as unknown.

Any problem: `tracecheck: FILE: PROBLEM` on stderr, exit status 1.
Python 3 standard library only.
"""

import json
import os
import re
import sys
from decimal import Decimal

from schema import summary as S
from schema import trace as T


class Problem(Exception):
    pass


def fail(path, message):
    sys.stdout.flush()
    print("tracecheck: %s: %s" % (path, message), file=sys.stderr, flush=True)
    sys.exit(1)


def load_json(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Problem("cannot read: %s" % (e.strerror or e))
    if not data.strip():
        raise Problem("empty file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Problem("not UTF-8: %s" % e)
    try:
        return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as e:
        raise Problem("not valid JSON (truncated?): %s at line %d column %d"
                      % (e.msg, e.lineno, e.colno))
    except RecursionError:
        raise Problem("not valid JSON: nested too deeply")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (is_int(v) or isinstance(v, Decimal)) and not isinstance(v, bool)


def number(v):
    return v if isinstance(v, Decimal) else Decimal(v)


def describe(event, index):
    name = event.get(T.Name) if isinstance(event, dict) else None
    return "traceEvents[%d]%s" % (index, " (%r)" % name if name is not None else "")


# ---------------------------------------------------------------------------
# trace


class Span:
    __slots__ = ("name", "start", "end", "index", "flags", "children")

    def __init__(self, name, start, end, index, flags):
        self.name = name
        self.start = start
        self.end = end
        self.index = index
        self.flags = flags
        self.children = []

    def label(self):
        return self.name + "".join(" [%s]" % f for f in self.flags)


FLAGS = (T.ArgUnwind, T.ArgAbandoned, T.ArgUnfinished)
API_CATEGORIES = (T.CategoryCudaRuntime, T.CategoryCudaDriver)
GPU_CATEGORIES = (T.CategoryKernel, T.CategoryMemcpy, T.CategoryMemset,
                  T.CategoryCudaSync)
API_ARGS = (T.ArgCbid, T.ArgCorrelation)
GPU_ARGS = (T.ArgDevice, T.ArgContext, T.ArgStream, T.ArgCorrelation)
GPU_META = (T.MetaGpuRecords, T.MetaGpuDroppedRecords,
            T.MetaGpuUnmatchedLaunches, T.MetaGpuUnmatchedGpuRecords,
            T.MetaGpuOutsideRun, T.MetaGpuStartsBeforeLaunch,
            T.MetaGpuOverlapMoves, T.MetaGpuZeroTimestamps)
META_COUNTERS = (T.MetaDroppedSpans, T.MetaDepthOverflows, T.MetaUnmatchedExits,
                 T.MetaAbandonedFrames)


def check_trace(doc):
    """Validates a trace; returns (spans by thread key, thread names, metadata)."""
    if not isinstance(doc, dict):
        raise Problem("expected the JSON object form ({\"traceEvents\": [...], "
                      "\"metadata\": {...}}), found a %s" % type(doc).__name__)
    events = doc.get(T.Events)
    if not isinstance(events, list):
        raise Problem("no traceEvents array")
    meta = doc.get(T.Metadata)
    if not isinstance(meta, dict):
        raise Problem("no metadata object")
    recovered = T.MetaRecovered in meta
    for key in META_COUNTERS:
        if key not in meta and recovered:
            # Recovered from a spill (perfctl trace recover): what the
            # runtime counted at exit was never written.
            continue
        if key not in meta:
            raise Problem("metadata has no %s" % key)
        if not is_int(meta[key]) or meta[key] < 0:
            raise Problem("metadata.%s is %r, expected a non-negative integer"
                          % (key, meta[key]))

    # Where each function is: metadata's table, one entry per function.
    located = set()
    table = meta.get(T.MetaFunctions, [])
    if not isinstance(table, list):
        raise Problem("metadata.%s is not a list" % T.MetaFunctions)
    for n, f in enumerate(table):
        if (not isinstance(f, dict) or not isinstance(f.get(T.Name), str) or
                not isinstance(f.get(T.ArgFile), str) or
                not is_int(f.get(T.ArgLine)) or f[T.ArgLine] < 0):
            raise Problem("metadata.%s[%d] has no name, file and line"
                          % (T.MetaFunctions, n))
        located.add(f[T.Name])

    spans = {}         # (pid, tid) -> [Span]
    thread_names = {}  # (pid, tid) -> name
    process_names = {}
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            raise Problem("traceEvents[%d] is not an object" % i)
        ph = e.get(T.Phase)
        if not isinstance(ph, str):
            raise Problem("%s has no ph" % describe(e, i))
        if ph == T.PhaseMetadata:
            name = e.get(T.Name)
            args = e.get(T.Args)
            if name in (T.ProcessName, T.ThreadName):
                if not isinstance(args, dict) or not isinstance(args.get(T.ArgName), str):
                    raise Problem("%s has no args.name" % describe(e, i))
                if not is_int(e.get(T.Pid)) or not is_int(e.get(T.Tid)):
                    raise Problem("%s has no integer pid and tid" % describe(e, i))
                if name == T.ProcessName:
                    process_names[e[T.Pid]] = args[T.ArgName]
                else:
                    thread_names[(e[T.Pid], e[T.Tid])] = args[T.ArgName]
            continue
        if ph != T.PhaseComplete:
            continue
        for key in (T.Name, T.Category):
            if not isinstance(e.get(key), str) or not e[key]:
                raise Problem("%s has no %s" % (describe(e, i), key))
        for key in (T.Pid, T.Tid):
            if not is_int(e.get(key)):
                raise Problem("%s has no integer %s" % (describe(e, i), key))
        for key in (T.Ts, T.Dur):
            if not is_number(e.get(key)):
                raise Problem("%s has no numeric %s" % (describe(e, i), key))
        if e[T.Dur] < 0:
            raise Problem("%s has a negative dur %s" % (describe(e, i), e[T.Dur]))
        args = e.get(T.Args, {} if e[T.Category] == T.CategoryCpuOp else None)
        if not isinstance(args, dict):
            raise Problem("%s has no args" % describe(e, i))
        if e[T.Category] in API_CATEGORIES + GPU_CATEGORIES:
            required = API_ARGS if e[T.Category] in API_CATEGORIES else GPU_ARGS
            for k in required:
                if not is_int(args.get(k)) or args[k] < 0:
                    raise Problem("%s has no integer args.%s" % (describe(e, i), k))
            start = number(e[T.Ts])
            spans.setdefault((e[T.Pid], e[T.Tid]), []).append(
                Span(e[T.Name], start, start + number(e[T.Dur]), i, []))
            continue
        if e[T.Category] == T.CategoryDelay:
            # A speed bump: names the function it slows, nests inside it.
            if not isinstance(args.get(T.ArgFunction), str):
                raise Problem("%s has no args.function" % describe(e, i))
            if not is_int(args.get(T.ArgRequestedNs)):
                raise Problem("%s has no args.requested_ns" % describe(e, i))
            start = number(e[T.Ts])
            spans.setdefault((e[T.Pid], e[T.Tid]), []).append(
                Span(T.DelayEventName, start, start + number(e[T.Dur]), i, []))
            continue
        if T.ArgFile in args or T.ArgLine in args:
            if not isinstance(args.get(T.ArgFile), str):
                raise Problem("%s has no args.file" % describe(e, i))
            if not is_int(args.get(T.ArgLine)) or args[T.ArgLine] < 0:
                raise Problem("%s has no args.line" % describe(e, i))
        elif e[T.Name] not in located:
            raise Problem("%s has no location: its function is not in "
                          "metadata.%s" % (describe(e, i), T.MetaFunctions))
        flags = []
        for f in FLAGS:
            if f in args:
                if args[f] is not True:
                    raise Problem("%s has args.%s=%r, expected true"
                                  % (describe(e, i), f, args[f]))
                flags.append(f)
        start = number(e[T.Ts])
        spans.setdefault((e[T.Pid], e[T.Tid]), []).append(
            Span(e[T.Name], start, start + number(e[T.Dur]), i, flags))

    for key in spans:
        if key[0] not in process_names:
            raise Problem("no process_name metadata event for pid %d" % key[0])
        if key not in thread_names:
            raise Problem("no thread_name metadata event for pid %d tid %d"
                          % key)
    return spans, thread_names, meta


def build_tree(key, spans):
    """Nests one thread's spans; raises on a partial overlap."""
    # Start order; at an equal start the longer span is the parent; at equal
    # start and end, the span written later (spans are written when they
    # end, so a parent after its children) is the parent.
    ordered = sorted(spans, key=lambda s: (s.start, -s.end, -s.index))
    roots = []
    stack = []
    for s in ordered:
        # Close what ended before s starts. A span ending exactly where s
        # starts is s's parent only when s has no length and was written
        # before it (a child ends, so is written, before its parent).
        while stack and (stack[-1].end < s.start or
                         (stack[-1].end == s.start and
                          (s.end > s.start or s.index > stack[-1].index))):
            stack.pop()
        if stack and s.end > stack[-1].end:
            p = stack[-1]
            raise Problem(
                "spans overlap on pid %d tid %d: %r [%s, %s] starts inside %r "
                "[%s, %s] but ends after it"
                % (key[0], key[1], s.name, s.start, s.end, p.name, p.start,
                   p.end))
        (stack[-1].children if stack else roots).append(s)
        stack.append(s)
    return roots


def render(nodes, depth, max_depth, collapse):
    """Lines for a list of sibling spans (list of (label, sublines))."""
    if max_depth is not None and depth >= max_depth:
        return []
    items = []
    for n in nodes:
        items.append((n.label(), render(n.children, depth + 1, max_depth,
                                        collapse)))
    lines = []
    i = 0
    indent = "  " * (depth + 1)
    while i < len(items):
        label, sub = items[i]
        j = i + 1
        if collapse:
            while j < len(items) and items[j] == items[i]:
                j += 1
        count = j - i
        lines.append(indent + label + (" x%d" % count if count > 1 else ""))
        lines.extend(sub)
        i = j
    return lines


def cmd_trace(args):
    opts = {"thread_name_only": False, "max_depth": None, "collapse": False,
            "metadata": False}
    files = []
    it = iter(args)
    for a in it:
        if a == "--thread-name-only":
            opts["thread_name_only"] = True
        elif a == "--collapse":
            opts["collapse"] = True
        elif a == "--metadata":
            opts["metadata"] = True
        elif a == "--max-depth" or a.startswith("--max-depth="):
            value = a.split("=", 1)[1] if "=" in a else next(it, None)
            if value is None or not value.isdigit():
                usage("--max-depth needs a non-negative integer")
            opts["max_depth"] = int(value)
        elif a.startswith("-") and a != "-":
            usage("unknown option %s" % a)
        else:
            files.append(a)
    if not files:
        usage("trace needs a FILE")
    out = []
    for path in files:
        try:
            doc = load_json(path)
            spans, names, meta = check_trace(doc)
            trees = {key: build_tree(key, s) for key, s in spans.items()}
        except Problem as e:
            fail(path, str(e))
        total = sum(len(s) for s in spans.values())
        out.append("trace: %d spans, %d threads, dropped=%s"
                   % (total, len(spans), meta.get(T.MetaDroppedSpans,
                                                  "unknown (recovered)")))
        if opts["metadata"]:
            out.append("metadata " + " ".join(
                "%s=%s" % (k, meta.get(k, "unknown")) for k in META_COUNTERS))
        order = sorted(spans, key=lambda k: (min(s.start for s in spans[k]),
                                             k[0], k[1]))
        other = 0
        for key in order:
            pid, tid = key
            line = "thread " + names[key]
            if not opts["thread_name_only"]:
                if tid == pid:
                    line += " tid=PID"
                else:
                    other += 1
                    line += " tid=T%d" % other
            out.append(line)
            out.extend(render(trees[key], 0, opts["max_depth"],
                              opts["collapse"]))
    print("\n".join(out))


# ---------------------------------------------------------------------------
# gpu


def enclosing(events_on_row, ts):
    """The event of a row that contains ts (innermost: latest start)."""
    best = None
    for e in events_on_row:
        start = number(e[T.Ts])
        if start <= ts <= start + number(e[T.Dur]):
            if best is None or start >= number(best[T.Ts]):
                best = e
    return best


def check_flows(doc):
    """Every flow is one start on a launch and one end on a GPU record of
    the same correlation; ids unique; none dangling. Returns the count."""
    rows = {}
    for e in doc[T.Events]:
        if e.get(T.Phase) == T.PhaseComplete and e.get(T.Category) in (
                API_CATEGORIES + GPU_CATEGORIES):
            rows.setdefault((e[T.Pid], e[T.Tid]), []).append(e)
    flows = {}
    for i, e in enumerate(doc[T.Events]):
        if e.get(T.Phase) not in (T.PhaseFlowStart, T.PhaseFlowEnd):
            continue
        if e.get(T.Category) != T.CategoryFlow or e.get(T.Name) != T.FlowName:
            raise Problem("%s: a flow not of category %s" % (describe(e, i), T.CategoryFlow))
        if not is_int(e.get(T.FlowId)):
            raise Problem("%s: a flow without an integer id" % describe(e, i))
        ends = flows.setdefault(e[T.FlowId], {})
        if e[T.Phase] in ends:
            raise Problem("flow id %d has two '%s' events" % (e[T.FlowId], e[T.Phase]))
        ends[e[T.Phase]] = e
    for fid, ends in flows.items():
        if set(ends) != {T.PhaseFlowStart, T.PhaseFlowEnd}:
            raise Problem("flow id %d is dangling (has only '%s')"
                          % (fid, "".join(ends)))
        s, f = ends[T.PhaseFlowStart], ends[T.PhaseFlowEnd]
        if f.get(T.FlowBindPoint) != T.FlowBindEnclosing:
            raise Problem("flow id %d: its end does not bind to the enclosing slice" % fid)
        launch = enclosing(rows.get((s[T.Pid], s[T.Tid]), []), number(s[T.Ts]))
        work = enclosing(rows.get((f[T.Pid], f[T.Tid]), []), number(f[T.Ts]))
        if launch is None or launch[T.Category] not in API_CATEGORIES:
            raise Problem("flow id %d starts on no CUDA API call" % fid)
        if work is None or work[T.Category] not in GPU_CATEGORIES:
            raise Problem("flow id %d ends on no GPU record" % fid)
        if launch[T.Args][T.ArgCorrelation] != work[T.Args][T.ArgCorrelation]:
            raise Problem("flow id %d joins correlation %d to %d"
                          % (fid, launch[T.Args][T.ArgCorrelation],
                             work[T.Args][T.ArgCorrelation]))
    return len(flows)


def cmd_gpu(args):
    """Validates a trace with GPU activity (everything `trace` checks, rows
    of GPU processes nesting, flows) and prints a deterministic view."""
    if len(args) != 1:
        usage("gpu needs one FILE")
    path = args[0]
    try:
        doc = load_json(path)
        spans, names, meta = check_trace(doc)
        for key, s in spans.items():
            build_tree(key, s)
        flows = check_flows(doc)
        gpu = meta.get(T.MetaGpu)
        if not isinstance(gpu, dict):
            raise Problem("metadata has no gpu object")
        for k in GPU_META:
            if not is_int(gpu.get(k)) or gpu[k] < 0:
                raise Problem("metadata.gpu.%s is %r, expected a non-negative integer"
                              % (k, gpu.get(k)))
    except Problem as e:
        fail(path, str(e))
    counts = {c: 0 for c in API_CATEGORIES + GPU_CATEGORIES}
    records = {}
    # The call each API call was charged to, through their External id.
    owners = {}
    for e in doc[T.Events]:
        if (e.get(T.Phase) == T.PhaseComplete and e.get(T.Category) == T.CategoryCpuOp
                and T.ArgExternalId in e.get(T.Args, {})):
            a = e[T.Args]
            if a[T.ArgExternalId] in owners:
                fail(path, "External id %d on two calls" % a[T.ArgExternalId])
            owners[a[T.ArgExternalId]] = e[T.Name] + "".join(
                " [%s]" % f for f in FLAGS if a.get(f) is True)
    calls = {}
    for e in doc[T.Events]:
        if e.get(T.Phase) != T.PhaseComplete or e.get(T.Category) not in counts:
            continue
        counts[e[T.Category]] += 1
        if e[T.Category] in API_CATEGORIES:
            ext = e[T.Args].get(T.ArgExternalId)
            if ext is not None and ext not in owners:
                fail(path, "%s has External id %d, which no call has" % (e[T.Name], ext))
            label = "api %s in %s" % (e[T.Name], owners.get(ext, "(no instrumented call)"))
            calls[label] = calls.get(label, 0) + 1
        if e[T.Category] in GPU_CATEGORIES:
            a = e[T.Args]
            label = "%s %s stream=%d" % (e[T.Category], e[T.Name], a[T.ArgStream])
            for k in (T.ArgLaunchedBy, T.ArgCapturedBy):
                if k in a:
                    label += " %s=%s" % (k, a[k])
            records[label] = records.get(label, 0) + 1
    out = ["gpu: %d runtime calls, %d driver calls, %d kernels, %d copies, "
           "%d memsets, %d syncs, %d flows"
           % (counts[T.CategoryCudaRuntime], counts[T.CategoryCudaDriver],
              counts[T.CategoryKernel], counts[T.CategoryMemcpy],
              counts[T.CategoryMemset], counts[T.CategoryCudaSync], flows)]
    out.append("metadata gpu %s=%s " % (T.MetaCupti, gpu.get(T.MetaCupti)) +
               " ".join("%s=%d" % (k, gpu[k]) for k in GPU_META))
    for label in sorted(calls):
        out.append("%s x%d" % (label, calls[label]))
    for label in sorted(records):
        out.append("%s x%d" % (label, records[label]))
    print("\n".join(out))


# ---------------------------------------------------------------------------
# summary

TIME_KEYS = (S.Total, S.Mean, S.P50, S.P99, S.Max)
DROP_KEYS = (S.DroppedSpans, S.DroppedDepthOverflows, S.DroppedUnmatchedExits,
             S.DroppedAbandonedFrames)


STRICT = False


def check_times(where, obj, key, percentiles=True):
    t = obj.get(key)
    if not isinstance(t, dict):
        raise Problem("%s has no %s object" % (where, key))
    if not percentiles:
        for k in (S.P50, S.P99):
            if k in t:
                raise Problem("%s.%s.%s: a union of processes' calls has no "
                              "percentile" % (where, key, k))
        t = dict(t, **{S.P50: 0, S.P99: 0})
    for k in TIME_KEYS:
        if not is_int(t.get(k)) or t[k] < 0:
            raise Problem("%s.%s.%s is %r, expected a non-negative integer"
                          % (where, key, k, t.get(k)))
    # Percentiles come from a log-linear histogram (runtime/perfrt_stats.h:
    # 8 sub-buckets per power of two, reported at the bucket's midpoint), so
    # by default they may exceed the true maximum by that error (1/16, plus
    # rounding to whole ns); with --strict they may not.
    limit = t[S.Max] if STRICT else t[S.Max] + t[S.Max] // 16 + 2
    if not t[S.P50] <= t[S.P99] <= limit:
        raise Problem("%s.%s: percentiles out of order: p50=%d p99=%d max=%d "
                      "(expected p50 <= p99 <= max%s)"
                      % (where, key, t[S.P50], t[S.P99], t[S.Max],
                         "" if STRICT else " + 1/16"))
    if t[S.Mean] > t[S.Max] or t[S.Max] > t[S.Total]:
        raise Problem("%s.%s: expected mean <= max <= total, found mean=%d "
                      "max=%d total=%d" % (where, key, t[S.Mean], t[S.Max],
                                           t[S.Total]))
    return t


def check_stats(where, obj, percentiles=True):
    if not is_int(obj.get(S.Calls)) or obj[S.Calls] < 0:
        raise Problem("%s has no non-negative integer calls" % where)
    inc = check_times(where, obj, S.InclusiveNs, percentiles)
    exc = check_times(where, obj, S.ExclusiveNs, percentiles)
    for k in (S.Total, S.Max):
        if exc[k] > inc[k]:
            raise Problem("%s: exclusive_ns.%s=%d exceeds inclusive_ns.%s=%d"
                          % (where, k, exc[k], k, inc[k]))


def check_merged_function(where, f):
    """A function of a merged summary against its processes' figures."""
    procs = f.get(S.Processes)
    if not isinstance(procs, list):
        raise Problem("%s has no processes array (a merged summary)" % where)
    for p in procs:
        if not isinstance(p, dict) or not is_int(p.get(S.Pid)):
            raise Problem("%s: a process has no pid" % where)
        check_stats("%s pid %d" % (where, p[S.Pid]), p)
    check_stats(where, f, percentiles=len(procs) <= 1)
    if sum(p[S.Calls] for p in procs) != f[S.Calls]:
        raise Problem("%s: calls=%d but its processes' add up to %d"
                      % (where, f[S.Calls], sum(p[S.Calls] for p in procs)))
    for key in (S.InclusiveNs, S.ExclusiveNs):
        if procs and sum(p[key][S.Total] for p in procs) != f[key][S.Total]:
            raise Problem("%s: %s.total is not its processes' sum" % (where, key))
        if procs and max(p[key][S.Max] for p in procs) != f[key][S.Max]:
            raise Problem("%s: %s.max is not its processes' largest" % (where, key))


def check_summary(doc):
    if not isinstance(doc, dict):
        raise Problem("expected a JSON object, found a %s" % type(doc).__name__)
    funcs = doc.get(S.Functions)
    if not isinstance(funcs, list):
        raise Problem("no functions array")
    dropped = doc.get(S.Dropped)
    if dropped is None and T.MetaRecovered in doc:
        # Recovered from a spill: what the runtime counted at exit is unknown.
        dropped = {k: "unknown" for k in DROP_KEYS}
    elif not isinstance(dropped, dict):
        raise Problem("no dropped object")
    for k in DROP_KEYS if dropped.get(S.DroppedSpans) != "unknown" else ():
        if not is_int(dropped.get(k)) or dropped[k] < 0:
            raise Problem("dropped.%s is %r, expected a non-negative integer"
                          % (k, dropped.get(k)))
    total_calls = 0
    for i, f in enumerate(funcs):
        if not isinstance(f, dict) or not isinstance(f.get(S.Name), str) or not f[S.Name]:
            raise Problem("functions[%d] has no name" % i)
        where = "function %r" % f[S.Name]
        if S.Merged in doc:
            check_merged_function(where, f)
        else:
            check_stats(where, f)
        threads = f.get(S.Threads)
        if not isinstance(threads, list) or not threads:
            raise Problem("%s has no threads array" % where)
        calls = 0
        for j, t in enumerate(threads):
            if not isinstance(t, dict) or not is_int(t.get(S.Tid)):
                raise Problem("%s: threads[%d] has no tid" % (where, j))
            check_stats("%s thread %d" % (where, t[S.Tid]), t)
            calls += t[S.Calls]
        if calls != f[S.Calls]:
            raise Problem("%s: calls=%d but its threads' calls add up to %d"
                          % (where, f[S.Calls], calls))
        total_calls += f[S.Calls]
    threads = doc.get(S.Threads)
    if not isinstance(threads, list):
        raise Problem("no threads array")
    thread_calls = 0
    for j, t in enumerate(threads):
        if (not isinstance(t, dict) or not is_int(t.get(S.Tid))
                or not isinstance(t.get(S.ThreadName), str)
                or not is_int(t.get(S.Calls))):
            raise Problem("threads[%d] needs tid, name and calls" % j)
        thread_calls += t[S.Calls]
    if thread_calls != total_calls:
        raise Problem("the threads' calls add up to %d, the functions' to %d"
                      % (thread_calls, total_calls))
    return funcs, threads, dropped


def cmd_summary(args):
    global STRICT
    show_threads = False
    files = []
    for a in args:
        if a == "--threads":
            show_threads = True
        elif a == "--strict":
            STRICT = True
        elif a.startswith("-") and a != "-":
            usage("unknown option %s" % a)
        else:
            files.append(a)
    if not files:
        usage("summary needs a FILE")
    out = []
    for path in files:
        try:
            funcs, threads, dropped = check_summary(load_json(path))
        except Problem as e:
            fail(path, str(e))
        for f in sorted(funcs, key=lambda f: (f[S.Name], f.get(S.File, ""),
                                              f.get(S.Line, 0))):
            out.append("function %s calls=%d" % (f[S.Name], f[S.Calls]))
        if show_threads:
            for t in sorted(threads, key=lambda t: (t[S.ThreadName], t[S.Calls])):
                out.append("thread %s calls=%d" % (t[S.ThreadName], t[S.Calls]))
        out.append("dropped spans=%s depth_overflows=%s unmatched_exits=%s "
                   "abandoned_frames=%s" % tuple(dropped[k] for k in DROP_KEYS))
    print("\n".join(out))


# ---------------------------------------------------------------------------
# files

NAME_RE = re.compile(r"^(?P<prog>.+)\.(?P<pid>[0-9]+)\.(?P<kind>trace|summary)\.json$")


def cmd_files(args):
    if len(args) != 1:
        usage("files needs exactly one DIR")
    d = args[0]
    try:
        names = os.listdir(d)
    except OSError as e:
        fail(d, "cannot list: %s" % (e.strerror or e))
    out = []
    for n in names:
        if not (n.endswith(".trace.json") or n.endswith(".summary.json")):
            continue
        m = NAME_RE.match(n)
        if not m:
            out.append(n)
            continue
        path = os.path.join(d, n)
        try:
            doc = load_json(path)
        except Problem:
            doc = None  # `trace`/`summary` report broken contents
        if isinstance(doc, dict):
            inner = doc.get(T.Metadata, {}) if m.group("kind") == "trace" else doc
            pid = inner.get(T.MetaPid) if isinstance(inner, dict) else None
            if pid is not None and str(pid) != m.group("pid"):
                fail(path, "named for pid %s but records pid %s"
                     % (m.group("pid"), pid))
        out.append("%s.PID.%s.json" % (m.group("prog"), m.group("kind")))
    out.sort()
    if out:
        print("\n".join(out))


def usage(message):
    print("tracecheck: %s\nusage: tracecheck.py trace|summary FILE... | gpu FILE | files DIR"
          % message, file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) < 2:
        usage("missing subcommand")
    cmd, args = argv[1], argv[2:]
    if cmd == "trace":
        cmd_trace(args)
    elif cmd == "summary":
        cmd_summary(args)
    elif cmd == "files":
        cmd_files(args)
    elif cmd == "gpu":
        cmd_gpu(args)
    elif cmd in ("-h", "--help"):
        print(__doc__)
    else:
        usage("unknown subcommand %r" % cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
