// Past PERFCC_TRACE_MAX_MB the trace keeps the run's first calls (the
// default, PERFCC_TRACE_KEEP=first) or, as a flight recorder, its last ones
// (PERFCC_TRACE_KEEP=last: the spill is a ring, the oldest chunk overwritten).
// Either way the summary counts every call, the trace's metadata and the
// summary count the same calls left out, and the exit says how many and
// which setting keeps more. (The calls still in memory at exit, at most a
// chunk a thread and what the writer had not taken, reach the trace in either
// mode.) The program makes 200,000 calls of early(), then
// 200,000 of late(): 12 MiB of spans against a 2 MiB cap.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'early\nlate\nmain\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/phases
// RUN: env PERFCC_OUT=%t/first PERFCC_TRACE_MAX_MB=2 %t/phases 2> %t/first.err
// RUN: %tracecheck trace --collapse %t/first/phases.*.trace.json > %t/first.view
// RUN: %tracecheck summary %t/first/phases.*.summary.json >> %t/first.view
// RUN: FileCheck %s --check-prefix=FIRST < %t/first.view
// RUN: FileCheck %s --check-prefix=FIRST-WARN < %t/first.err
// RUN: env PERFCC_OUT=%t/last PERFCC_TRACE_MAX_MB=2 PERFCC_TRACE_KEEP=last %t/phases 2> %t/last.err
// RUN: %tracecheck trace --collapse %t/last/phases.*.trace.json > %t/last.view
// RUN: %tracecheck summary %t/last/phases.*.summary.json >> %t/last.view
// RUN: FileCheck %s --check-prefix=LAST < %t/last.view
// RUN: FileCheck %s --check-prefix=LAST-WARN < %t/last.err
// RUN: not env PERFCC_OUT=%t/none PERFCC_TRACE_MAX_MB=0 PERFCC_TRACE_KEEP=last %t/phases 2> %t/none.err
// RUN: FileCheck %s --check-prefix=NO-SIZE < %t/none.err
// RUN: not env PERFCC_OUT=%t/none PERFCC_TRACE_KEEP=end %t/phases 2> %t/none.err
// RUN: FileCheck %s --check-prefix=BAD < %t/none.err

// FIRST:      trace: {{[0-9]+}} spans, 1 threads, dropped=[[DROPPED:[1-9][0-9]*]]
// FIRST-NEXT: thread {{.*}}
// FIRST-NEXT:   main
// FIRST-NEXT:     early x{{[1-9][0-9]*}}
// FIRST:      function early calls=200000
// FIRST:      function late calls=200000
// FIRST:      dropped spans=[[DROPPED]]
// FIRST-WARN: perfcc: {{[1-9][0-9]*}} calls are in the summary but not in the trace: PERFCC_TRACE_MAX_MB=2 was reached and the trace keeps the run's first calls; PERFCC_TRACE_KEEP=last keeps its last ones, a larger PERFCC_TRACE_MAX_MB more of them

// LAST:      trace: {{[0-9]+}} spans, 1 threads, dropped=[[DROPPED:[1-9][0-9]*]]
// LAST-NEXT: thread {{.*}}
// LAST-NEXT:   main
// LAST-NEXT:     late x{{[1-9][0-9]*}}
// LAST-NOT:  early
// LAST:      function early calls=200000
// LAST:      function late calls=200000
// LAST:      dropped spans=[[DROPPED]]
// LAST-WARN: perfcc: {{[1-9][0-9]*}} calls are in the summary but not in the trace: PERFCC_TRACE_MAX_MB=2 was reached and the trace keeps the run's last calls; raise it to keep more

// NO-SIZE: perfcc: PERFCC_TRACE_KEEP='last' with PERFCC_TRACE_MAX_MB=0: keeping the last calls needs a size to keep (PERFCC_TRACE_MAX_MB, in MiB)
// BAD: perfcc: PERFCC_TRACE_KEEP='end': expected first or last

volatile int sink;

__attribute__((noinline)) void early(int v) { sink = v; }
__attribute__((noinline)) void late(int v) { sink = v; }

int main() {
  for (int i = 0; i < 200000; ++i)
    early(i);
  for (int i = 0; i < 200000; ++i)
    late(i);
  return 0;
}
