// A longjmp from 600 frames deep, beyond the 512 the runtime tracks, back to
// `runner`: the tracked frames it skipped end [abandoned], and the skipped
// frames beyond the limit are forgotten too, so the calls after the jump
// (`after` in runner, `tail` in main) are recorded and nest normally, with no
// exit mistaken for one of the skipped frames.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nrunner\nrecurse\nafter\ntail\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/deepjump
// RUN: env PERFCC_OUT=%t/out %t/deepjump | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --metadata --collapse --max-depth 3 %t/out/deepjump.*.trace.json | FileCheck %s

// OUT: jumped 600

// main and runner take 2 frames, recurse 510; 90 calls overflow.
// CHECK:      trace: 514 spans, 1 threads, dropped=0
// CHECK-NEXT: metadata dropped_spans=0 depth_overflows=90 unmatched_exits=0 abandoned_frames=510
// CHECK-NEXT: thread deepjump
// CHECK-NEXT:   main{{$}}
// CHECK-NEXT:     runner{{$}}
// CHECK-NEXT:       recurse [abandoned]
// CHECK-NEXT:       after{{$}}
// CHECK-NEXT:     tail{{$}}

#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
volatile int sink;

__attribute__((noinline)) int recurse(int n) {
  if (n == 0)
    longjmp(env, 600);
  int r = recurse(n - 1) + 1;
  sink = r;
  return r;
}

__attribute__((noinline)) void after(int v) { sink = v; }
__attribute__((noinline)) void tail(void) { sink = 0; }

__attribute__((noinline)) int runner(void) {
  int v = setjmp(env);
  if (v == 0)
    return recurse(599);
  after(v);
  return v;
}

int main(void) {
  printf("jumped %d\n", runner());
  tail();
  return 0;
}
