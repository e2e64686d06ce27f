// An exception thrown by `thrower` passes through `middle` and is caught in
// main: both spans end, marked [unwind], before the handler's own
// instrumented call `handle` starts, which is therefore their sibling; later
// calls nest normally.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nmiddle\nthrower\nhandle\nafter\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/exc
// RUN: env PERFCC_OUT=%t/out %t/exc | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only %t/out/exc.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/exc.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// OUT: caught 7

// CHECK:      trace: 5 spans, 1 threads, dropped=0
// CHECK-NEXT: thread exc
// CHECK-NEXT:   main
// CHECK-NEXT:     middle [unwind]
// CHECK-NEXT:       thrower [unwind]
// CHECK-NEXT:     handle
// CHECK-NEXT:     after

// SUMMARY: function thrower calls=1
// SUMMARY: dropped spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=0

#include <cstdio>
#include <stdexcept>

volatile int sink;

__attribute__((noinline)) void thrower(int v) {
  if (v > 0)
    throw v;
  sink = v;
}

__attribute__((noinline)) int middle(int v) {
  thrower(v);
  return sink + 1; // not reached
}

__attribute__((noinline)) void handle(int v) { std::printf("caught %d\n", v); }
__attribute__((noinline)) void after() { sink = 0; }

int main() {
  try {
    middle(7);
  } catch (int v) {
    handle(v);
  }
  after();
  return 0;
}
