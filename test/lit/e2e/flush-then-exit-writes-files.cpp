// perf_flush() writes the trace and the summary at once (the calls still
// open are [unfinished]) and stops recording, so a program that then leaves
// with _exit(0) still has its files; calls after the flush are not recorded
// and nothing is written twice.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nwork\nfinish\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/flushed
// RUN: env PERFCC_OUT=%t/out %t/flushed > %t/stdout 2> %t/err; echo "rc=$?" > %t/rc
// RUN: cat %t/rc %t/stdout | FileCheck %s --check-prefix=RC
// RUN: FileCheck %s --check-prefix=ERR < %t/err
// RUN: count 1 < %t/err
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: %tracecheck trace --thread-name-only %t/out/flushed.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/flushed.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// RC:      rc=0
// RC-NEXT: flushed

// ERR: {{^}}perfcc: wrote {{.*}}/flushed.{{[0-9]+}}.trace.json and {{.*}}/flushed.{{[0-9]+}}.summary.json

// FILES:      flushed.PID.summary.json
// FILES-NEXT: flushed.PID.trace.json

// CHECK:      trace: 4 spans, 1 threads, dropped=0
// CHECK-NEXT: thread flushed
// CHECK-NEXT:   main [unfinished]
// CHECK-NEXT:     work{{$}}
// CHECK-NEXT:     work{{$}}
// CHECK-NEXT:     finish [unfinished]

// SUMMARY:      function finish calls=1
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: function work calls=2

#include <perf/perf.h>

#include <cstdio>
#include <unistd.h>

volatile int sink;
__attribute__((noinline)) void work(int v) { sink = v; }

__attribute__((noinline)) void finish() {
  perf_flush();
  work(99); // after the flush: not recorded
  perf_flush(); // does nothing
  std::puts("flushed");
  std::fflush(stdout);
  _exit(0);
}

int main() {
  work(1);
  work(2);
  finish();
  return 0;
}
