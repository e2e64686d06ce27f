// A call that may throw becomes an invoke whose unwind edge reaches a cleanup
// landing pad; the unwind probe runs before its resume. clang's own
// -finstrument-functions emits no exit call on this path.
// RUN: %clangxx -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s

void mayThrow(int);

// CHECK-LABEL: define {{.*}} @_Z6middlei(
// CHECK-SAME:    personality
// CHECK:         invoke void @_Z8mayThrowi(
// CHECK-NEXT:      to label %{{.*}} unwind label %perfcc.unwind
// CHECK:       perfcc.unwind:
// CHECK-NEXT:    landingpad
// CHECK-NEXT:      cleanup
// CHECK:         call void @__perfcc_unwind({{.*}}@__perfcc_desc._Z6middlei
// CHECK:         resume
void middle(int x) { mayThrow(x); }
