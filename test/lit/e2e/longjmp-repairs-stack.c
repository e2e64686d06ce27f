// A longjmp out of three instrumented frames (l1 -> l2 -> l3) back into
// `runner`: the skipped frames end as [abandoned] when setjmp returns the
// second time, and the calls made after it (`after`, then `tail` from main)
// nest under the right parents.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nrunner\nl1\nl2\nl3\nafter\ntail\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/jump
// RUN: env PERFCC_OUT=%t/out %t/jump | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --metadata %t/out/jump.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/jump.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// OUT: jumped 3

// CHECK:      trace: 7 spans, 1 threads, dropped=0
// CHECK-NEXT: metadata dropped_spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=3
// CHECK-NEXT: thread jump
// CHECK-NEXT:   main
// CHECK-NEXT:     runner{{$}}
// CHECK-NEXT:       l1 [abandoned]
// CHECK-NEXT:         l2 [abandoned]
// CHECK-NEXT:           l3 [abandoned]
// CHECK-NEXT:       after{{$}}
// CHECK-NEXT:     tail{{$}}

// SUMMARY:      function after calls=1
// SUMMARY-NEXT: function l1 calls=1
// SUMMARY-NEXT: function l2 calls=1
// SUMMARY-NEXT: function l3 calls=1
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: function runner calls=1
// SUMMARY-NEXT: function tail calls=1
// SUMMARY-NEXT: dropped spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=3

#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
volatile int sink;

__attribute__((noinline)) void l3(int v) {
  sink = v;
  longjmp(env, v);
}
__attribute__((noinline)) void l2(int v) {
  l3(v);
  sink = 2;
}
__attribute__((noinline)) void l1(int v) {
  l2(v);
  sink = 1;
}
__attribute__((noinline)) void after(int v) { sink = v; }
__attribute__((noinline)) void tail(void) { sink = 0; }

__attribute__((noinline)) int runner(void) {
  int v = setjmp(env);
  if (v == 0) {
    l1(3);
    return 0;
  }
  after(v);
  return v;
}

int main(void) {
  printf("jumped %d\n", runner());
  tail();
  return 0;
}
