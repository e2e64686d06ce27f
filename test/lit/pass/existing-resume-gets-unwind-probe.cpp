// A function with its own cleanups already ends its landing pads in resume:
// the unwind probe goes before that resume too.
// RUN: %clangxx -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s

struct Guard {
  ~Guard();
};
void mayThrow();

// CHECK-LABEL: define {{.*}} @_Z9withGuardv(
// CHECK:         invoke void @_Z8mayThrowv()
// CHECK:         landingpad
// CHECK:         call void @__perfcc_unwind({{.*}}@__perfcc_desc._Z9withGuardv
// CHECK-NEXT:    br label
// CHECK:         resume
void withGuard() {
  Guard g;
  mayThrow();
}
