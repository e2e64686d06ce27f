// Score-P filter files work as targets files: everything starts included
// (then the threshold applies), EXCLUDE/INCLUDE rules decide by last match.
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.ll
// RUN: printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE keep*\nSCOREP_REGION_NAMES_END\n' > %t.filter
// RUN: env PERFCC_BUILD_TARGETS=%t.filter %opt -passes=perf-instrument -S %t.ll \
// RUN:   -pass-remarks=perf-instrument -pass-remarks-missed=perf-instrument \
// RUN:   -o /dev/null 2>&1 | FileCheck %s

// CHECK-DAG: instrumented keepThis: selected by {{.*}}.filter:3
// CHECK-DAG: not instrumented dropThis: excluded by {{.*}}.filter:2

int keepThis(int x) { return x; }
int dropThis(int x) { return x; }
