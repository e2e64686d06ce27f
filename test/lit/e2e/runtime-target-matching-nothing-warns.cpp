// A PERFCC_TARGETS pattern that matches no registered function is reported
// at exit, on stderr, as FILE:LINE:COL: warning, after the line naming the
// output files; the patterns that match are not reported and the run
// succeeds.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nused\n' > %t/build.targets
// RUN: %perfcc -O1 -g --perf-targets=%t/build.targets %s -o %t/unused
// RUN: printf 'used\n# a typo:\nusde\n' > %t/run.targets
// RUN: env PERFCC_OUT=%t/out PERFCC_TARGETS=%t/run.targets %t/unused 2>%t/err
// RUN: FileCheck %s -DTARGETS=%t/run.targets < %t/err
// RUN: %tracecheck trace --thread-name-only %t/out/unused.*.trace.json | FileCheck %s --check-prefix=TRACE

// CHECK:      perfcc: wrote
// CHECK-NEXT: perfcc: PERFCC_TARGETS: [[TARGETS]]:3:1: warning: pattern 'usde' matches no function
// CHECK-NOT:  warning

// TRACE:      trace: 1 spans, 1 threads, dropped=0
// TRACE-NEXT: thread unused
// TRACE-NEXT:   used

volatile int sink;
__attribute__((noinline)) void used() { sink = 1; }
int main() {
  used();
  return 0;
}
