// A module where nothing is selected is left as it was: no descriptors, no
// constructor, no flag.
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes=perf-instrument -S %t.ll | FileCheck %s
// CHECK-NOT: perfcc
int tiny(int x) { return x + 1; }
