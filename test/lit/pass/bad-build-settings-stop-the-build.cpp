// A bad setting stops the build with one line naming it, never a silent
// default; a malformed targets file is reported as FILE:LINE:COL: error.
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=abc not %opt -passes=perf-instrument -S %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=THRESHOLD
// RUN: env PERFCC_BUILD_STAGE=middle not %opt -passes=perf-instrument -S %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: env PERFCC_BUILD_INSTRUMENT_ATTRS=yes not %opt -passes=perf-instrument -S %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTRS
// RUN: printf 'good\n:broken\n' > %t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.targets not %clang -O1 -fpass-plugin=%plugin -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGETS -DT=%t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.missing not %clang -O1 -fpass-plugin=%plugin -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING -DT=%t.missing

// THRESHOLD: PERFCC_BUILD_THRESHOLD='abc': expected a non-negative integer (IR instructions)
// STAGE: PERFCC_BUILD_STAGE='middle': expected 'early' or 'late'
// ATTRS: PERFCC_BUILD_INSTRUMENT_ATTRS='yes': expected 0 or 1
// TARGETS: [[T]]:2:1: error: empty file pattern before ':'
// TARGETS: error: perfcc: invalid build settings (see the line above)
// MISSING: [[T]]: error: cannot read targets file: No such file or directory
int f(int x) { return x; }
