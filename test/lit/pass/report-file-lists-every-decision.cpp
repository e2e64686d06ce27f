// PERFCC_BUILD_REPORT appends one JSON line per defined function: what was
// decided and why (users always ask why a function got no probe).
// RUN: rm -f %t.jsonl
// RUN: %clangxx -O1 -g -S -emit-llvm %s -o %t.ll
// RUN: env PERFCC_BUILD_REPORT=%t.jsonl PERFCC_BUILD_THRESHOLD=5 %opt -passes=perf-instrument -S %t.ll -o /dev/null
// RUN: FileCheck %s < %t.jsonl
// Appends: a second module's lines follow the first's.
// RUN: env PERFCC_BUILD_REPORT=%t.jsonl PERFCC_BUILD_THRESHOLD=5 %opt -passes=perf-instrument -S %t.ll -o /dev/null
// RUN: grep -c '"function":"bigger"' %t.jsonl | FileCheck %s --check-prefix=TWICE

// CHECK-DAG: {"file":"{{.*}}report-file-lists-every-decision.cpp","function":"tiny","instructions":{{[0-9]+}},"instrumented":false,"line":[[@LINE+4]],"mangled":"tiny","module":"{{.*}}","reason":"{{[0-9]+}} IR instructions < threshold 5 and no loop","stage":"late"}
// CHECK-DAG: {"file":"{{.*}}","function":"bigger","instructions":{{[0-9]+}},"instrumented":true,"line":{{[0-9]+}},"mangled":"bigger","module":"{{.*}}","reason":"{{[0-9]+}} IR instructions >= threshold 5","stage":"late"}
// TWICE: 2
extern "C" {
int tiny(int x) { return x; }
int bigger(int a, int b) { return (a * b + a) ^ (b - a) * (a + 7); }
}
