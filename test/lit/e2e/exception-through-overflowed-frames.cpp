// An exception thrown 600 calls deep, beyond the 512 frames the runtime
// tracks, unwinds through every frame to main's handler: the tracked
// frames end [unwind], the untracked ones balance their overflow count, and
// the call after the catch nests under main with nothing unmatched.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nrecurse\nafter\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/deepthrow
// RUN: env PERFCC_OUT=%t/out %t/deepthrow | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --metadata --collapse --max-depth 3 %t/out/deepthrow.*.trace.json | FileCheck %s

// OUT: caught 600

// main takes 1 frame, recurse 511; 89 calls overflow.
// CHECK:      trace: 513 spans, 1 threads, dropped=0
// CHECK-NEXT: metadata dropped_spans=0 depth_overflows=89 unmatched_exits=0 abandoned_frames=0
// CHECK-NEXT: thread deepthrow
// CHECK-NEXT:   main{{$}}
// CHECK-NEXT:     recurse [unwind]
// CHECK-NEXT:       recurse [unwind]
// CHECK-NEXT:     after{{$}}

#include <cstdio>

volatile int sink;

__attribute__((noinline)) int recurse(int n) {
  if (n == 0)
    throw 600;
  int r = recurse(n - 1) + 1;
  sink = r;
  return r;
}

__attribute__((noinline)) void after(int v) { sink = v; }

int main() {
  try {
    recurse(599);
  } catch (int v) {
    std::printf("caught %d\n", v);
    after(v);
  }
  return 0;
}
