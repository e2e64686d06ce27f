// With PERFCC_BUFFER_MB=1 and a million calls made faster than they can be
// written, spans are dropped, never silently: the run finishes normally, the
// trace is valid, its metadata counts the dropped spans, the summary counts
// the same number, and the summary still counts every call.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/tiny
// RUN: env PERFCC_OUT=%t/out PERFCC_BUFFER_MB=1 %t/tiny | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --collapse --max-depth 1 %t/out/tiny.*.trace.json > %t/view
// RUN: %tracecheck summary %t/out/tiny.*.summary.json >> %t/view
// RUN: FileCheck %s < %t/view

// OUT: done 1000000

// CHECK:      trace: {{[0-9]+}} spans, 1 threads, dropped=[[DROPPED:[1-9][0-9]*]]
// CHECK:      function main calls=1
// CHECK-NEXT: function work calls=1000000
// CHECK-NEXT: dropped spans=[[DROPPED]] depth_overflows=0 unmatched_exits=0 abandoned_frames=0

#include <cstdio>

volatile int sink;
__attribute__((noinline)) void work(int v) { sink = v; }

int main() {
  int n = 0;
  for (; n < 1000000; ++n)
    work(n);
  std::printf("done %d\n", n);
  return 0;
}
