// Without PERFCC_OUT the files go to ./perfcc-out, created when needed; a
// nested PERFCC_OUT folder is created with its parents.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/where
// RUN: cd %t && %t/where
// RUN: %tracecheck files %t/perfcc-out | FileCheck %s
// RUN: env PERFCC_OUT=%t/a/b/c %t/where
// RUN: %tracecheck files %t/a/b/c | FileCheck %s
// RUN: %tracecheck trace --thread-name-only %t/a/b/c/where.*.trace.json | FileCheck %s --check-prefix=TRACE

// CHECK:      where.PID.summary.json
// CHECK-NEXT: where.PID.trace.json

// TRACE:      trace: 1 spans, 1 threads, dropped=0
// TRACE-NEXT: thread where
// TRACE-NEXT:   main

int main() { return 0; }
