// Spans nest as the calls did: main -> a -> b -> c, with repeated calls as
// siblings in call order, one tree on the main thread; the summary counts
// every call.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\na\nb\nc\nleaf\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/nesting
// RUN: env PERFCC_OUT=%t/out %t/nesting | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace %t/out/nesting.*.trace.json | FileCheck %s
// RUN: %tracecheck trace --collapse --thread-name-only %t/out/nesting.*.trace.json \
// RUN:   | FileCheck %s --check-prefix=COLLAPSED
// RUN: %tracecheck trace --max-depth 2 --thread-name-only %t/out/nesting.*.trace.json \
// RUN:   | FileCheck %s --check-prefix=DEPTH
// RUN: %tracecheck summary %t/out/nesting.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// OUT: total=

// CHECK:      trace: 13 spans, 1 threads, dropped=0
// CHECK-NEXT: thread nesting tid=PID
// CHECK-NEXT:   main
// CHECK-NEXT:     a
// CHECK-NEXT:       b
// CHECK-NEXT:         c
// CHECK-NEXT:         c
// CHECK-NEXT:     a
// CHECK-NEXT:       b
// CHECK-NEXT:         c
// CHECK-NEXT:         c
// CHECK-NEXT:     leaf
// CHECK-NEXT:     leaf
// CHECK-NEXT:     leaf
// CHECK-NEXT:     leaf

// COLLAPSED:      thread nesting
// COLLAPSED-NEXT:   main
// COLLAPSED-NEXT:     a x2
// COLLAPSED-NEXT:       b
// COLLAPSED-NEXT:         c x2
// COLLAPSED-NEXT:     leaf x4

// DEPTH:      thread nesting
// DEPTH-NEXT:   main
// DEPTH-NEXT:     a
// DEPTH-NEXT:     a
// DEPTH-NEXT:     leaf

// SUMMARY:      function a calls=2
// SUMMARY-NEXT: function b calls=2
// SUMMARY-NEXT: function c calls=4
// SUMMARY-NEXT: function leaf calls=4
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: dropped spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=0

#include <cstdio>

volatile int sink;
__attribute__((noinline)) int c(int x) { sink = x; return x * 3 + 1; }
__attribute__((noinline)) int b(int x) { return c(x) + c(x + 1); }
__attribute__((noinline)) int a(int x) { return b(x) * 2; }
__attribute__((noinline)) int leaf(int x) { sink = x; return x + 1; }

int main() {
  int total = a(1) + a(2);
  for (int i = 0; i < 4; ++i)
    total += leaf(i);
  std::printf("total=%d\n", total);
  return 0;
}
