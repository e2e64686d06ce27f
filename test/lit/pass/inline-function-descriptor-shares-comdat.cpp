// An inline function is emitted in every module that uses it and the linker
// keeps one copy: its descriptor is in the function's comdat, so it is kept
// or dropped with it and the runtime sees the function once.
// RUN: %clangxx -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s

// CHECK: @__perfcc_desc._Z6squarei = private global {{.*}} section "perfcc_desc", comdat($_Z6squarei), align 8
inline int square(int x) { return x * x; }
int use(int x) { return square(x); }
