// Recursion 1000 calls deep, beyond the 512 frames the runtime tracks per
// thread: the deeper calls are counted as depth overflows (in the trace's
// metadata and the summary alike), not recorded, and do not disturb the
// rest: the trace is valid, the recorded frames nest, and the call after the
// recursion is main's child again.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nrecurse\nafter\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/deep
// RUN: env PERFCC_OUT=%t/out %t/deep | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --metadata --max-depth 3 %t/out/deep.*.trace.json > %t/view
// RUN: %tracecheck summary %t/out/deep.*.summary.json >> %t/view
// RUN: FileCheck %s < %t/view

// OUT: depth 1000

// main is frame 1, recurse takes frames 2..512, and the 489 deeper calls overflow.
// CHECK:      trace: 513 spans, 1 threads, dropped=0
// CHECK-NEXT: metadata dropped_spans=0 depth_overflows=489 unmatched_exits=0 abandoned_frames=0
// CHECK-NEXT: thread deep
// CHECK-NEXT:   main
// CHECK-NEXT:     recurse
// CHECK-NEXT:       recurse
// CHECK-NEXT:     after
// CHECK-NEXT: function after calls=1
// CHECK-NEXT: function main calls=1
// CHECK-NEXT: function recurse calls=511
// CHECK-NEXT: dropped spans=0 depth_overflows=489 unmatched_exits=0 abandoned_frames=0

#include <cstdio>

volatile int sink;

__attribute__((noinline)) int recurse(int n) {
  if (n == 0)
    return 0;
  int r = recurse(n - 1) + 1;
  sink = r; // keeps the call from being a tail call
  return r;
}

__attribute__((noinline)) void after() { sink = 0; }

int main() {
  std::printf("depth %d\n", recurse(999) + 1);
  after();
  return 0;
}
