// The setjmp is in `plain`, a function without probes (so nothing resyncs
// when it returns again): the frames l1, l2, l3 that the longjmp skipped are
// still closed as [abandoned] once the next instrumented call (`after`, from
// plain) starts, and `after` nests under main, its nearest instrumented
// caller, not under the dead l1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nl1\nl2\nl3\nafter\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/jump2
// RUN: env PERFCC_OUT=%t/out %t/jump2 | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --metadata %t/out/jump2.*.trace.json | FileCheck %s

// OUT: jumped 3

// CHECK:      trace: 5 spans, 1 threads, dropped=0
// CHECK-NEXT: metadata dropped_spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=3
// CHECK-NEXT: thread jump2
// CHECK-NEXT:   main
// CHECK-NEXT:     l1 [abandoned]
// CHECK-NEXT:       l2 [abandoned]
// CHECK-NEXT:         l3 [abandoned]
// CHECK-NEXT:     after{{$}}

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

__attribute__((noinline)) int plain(void) {
  int v = setjmp(env);
  if (v == 0) {
    l1(3);
    return 0;
  }
  after(v);
  return v;
}

int main(void) {
  printf("jumped %d\n", plain());
  return 0;
}
