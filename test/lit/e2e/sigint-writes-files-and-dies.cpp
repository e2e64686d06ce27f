// A program that interrupts itself with SIGINT in the middle of instrumented
// calls still leaves a valid trace and summary: the finished calls as usual,
// the open ones (main, stage, interrupt_now) marked [unfinished]; the line on
// stderr names both files; and the process still dies of SIGINT (status 130
// in the shell).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nstage\nwork\ninterrupt_now\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/intr
// lit starts tests with SIGINT ignored (the runtime then leaves it alone, as
// under nohup): restore the default disposition for the program.
// RUN: env PERFCC_OUT=%t/out %python -c "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])" \
// RUN:   %t/intr > %t/stdout 2> %t/err; echo "rc=$?" > %t/rc
// RUN: FileCheck %s --check-prefix=RC < %t/rc
// RUN: FileCheck %s --check-prefix=ERR < %t/err
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: %tracecheck trace --thread-name-only %t/out/intr.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/intr.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// RC: rc=130

// ERR: perfcc: wrote {{.*}}/intr.{{[0-9]+}}.trace.json and {{.*}}/intr.{{[0-9]+}}.summary.json

// FILES:      intr.PID.summary.json
// FILES-NEXT: intr.PID.trace.json

// CHECK:      trace: 6 spans, 1 threads, dropped=0
// CHECK-NEXT: thread intr
// CHECK-NEXT:   main [unfinished]
// CHECK-NEXT:     work{{$}}
// CHECK-NEXT:     stage [unfinished]
// CHECK-NEXT:       work{{$}}
// CHECK-NEXT:       work{{$}}
// CHECK-NEXT:       interrupt_now [unfinished]

// SUMMARY:      function interrupt_now calls=1
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: function stage calls=1
// SUMMARY-NEXT: function work calls=3

#include <csignal>

volatile int sink;
__attribute__((noinline)) void work(int v) { sink = v; }
__attribute__((noinline)) void interrupt_now() { std::raise(SIGINT); }
__attribute__((noinline)) void stage() {
  work(1);
  work(2);
  interrupt_now();
  work(3); // not reached
}

int main() {
  work(0);
  stage();
  return 0;
}
