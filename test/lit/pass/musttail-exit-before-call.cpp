// Nothing may stand between a musttail call and its return, so the exit
// probe goes before the call: caller and callee become siblings, as XRay's
// tail-exit records them.
// RUN: %clangxx -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s

int callee(int x);

// CHECK-LABEL: define {{.*}} @_Z6calleri(
// CHECK:         call void @__perfcc_exit({{.*}}@__perfcc_desc._Z6calleri
// CHECK:         musttail call {{.*}} @_Z6calleei(
// CHECK-NEXT:    ret i32
int caller(int x) { [[clang::musttail]] return callee(x + 1); }
