// A program that kills itself with SIGTERM in the middle of instrumented
// calls still leaves a valid trace and summary: the finished calls as usual,
// the open ones (main, stage, terminate_now) marked [unfinished]; the line on
// stderr names both files; and the process still dies of SIGTERM (status 143
// in the shell).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nstage\nwork\nterminate_now\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/term
// Run with SIGTERM at its default disposition, whatever the test runner set.
// RUN: env PERFCC_OUT=%t/out %python -c "import os, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])" \
// RUN:   %t/term > %t/stdout 2> %t/err; echo "rc=$?" > %t/rc
// RUN: FileCheck %s --check-prefix=RC < %t/rc
// RUN: FileCheck %s --check-prefix=ERR < %t/err
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: %tracecheck trace --thread-name-only %t/out/term.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/term.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// RC: rc=143

// ERR: perfcc: wrote {{.*}}/term.{{[0-9]+}}.trace.json and {{.*}}/term.{{[0-9]+}}.summary.json

// FILES:      term.PID.summary.json
// FILES-NEXT: term.PID.trace.json

// CHECK:      trace: 6 spans, 1 threads, dropped=0
// CHECK-NEXT: thread term
// CHECK-NEXT:   main [unfinished]
// CHECK-NEXT:     work{{$}}
// CHECK-NEXT:     stage [unfinished]
// CHECK-NEXT:       work{{$}}
// CHECK-NEXT:       work{{$}}
// CHECK-NEXT:       terminate_now [unfinished]

// SUMMARY:      function main calls=1
// SUMMARY-NEXT: function stage calls=1
// SUMMARY-NEXT: function terminate_now calls=1
// SUMMARY-NEXT: function work calls=3

#include <csignal>

volatile int sink;
__attribute__((noinline)) void work(int v) { sink = v; }
__attribute__((noinline)) void terminate_now() { std::raise(SIGTERM); }
__attribute__((noinline)) void stage() {
  work(1);
  work(2);
  terminate_now();
  work(3); // not reached
}

int main() {
  work(0);
  stage();
  return 0;
}
