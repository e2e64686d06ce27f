// A module flag marks instrumented modules: a second run changes nothing.
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument,perf-instrument -S %t.ll | FileCheck %s

// CHECK-LABEL: define {{.*}} @_Z4once
// CHECK-COUNT-1: call void @__perfcc_enter
// CHECK-NOT:     call void @__perfcc_enter
// CHECK: !{i32 7, !"perfcc.instrumented", i32 1}
int once(int x) { return x * 3; }
