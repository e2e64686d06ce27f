// C without -fexceptions: functions are nounwind, no exception can leave
// them, so no landing pad is added.
// RUN: %clang -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s

void external(int);

// CHECK-LABEL: define {{.*}} @plain(
// CHECK:         call void @__perfcc_enter
// CHECK-NOT:     invoke
// CHECK-NOT:     landingpad
// CHECK:         call void @__perfcc_exit
// CHECK:       }
void plain(int x) { external(x); }
