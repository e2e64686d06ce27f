// PERFCC_TARGETS chooses, at run time, which compiled-in probes record:
// only the functions it selects appear in the trace and the summary; a
// recorded function whose caller is filtered out nests under the nearest
// recorded ancestor. `!` excludes and the last matching line decides.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nouter\nwork::*\n' > %t/build.targets
// RUN: %perfcc -O1 -g --perf-targets=%t/build.targets %s -o %t/filtered
// RUN: printf '# run-time selection\nouter\nwork::*\n!work::middle\n' > %t/run.targets
// RUN: env PERFCC_OUT=%t/out PERFCC_TARGETS=%t/run.targets %t/filtered 2>%t/err \
// RUN:   | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only %t/out/filtered.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/filtered.*.summary.json | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=ERR --implicit-check-not=warning < %t/err

// OUT: sum 12

// CHECK:      trace: 5 spans, 1 threads, dropped=0
// CHECK-NEXT: thread filtered
// CHECK-NEXT:   outer
// CHECK-NEXT:     work::leaf
// CHECK-NEXT:     work::leaf
// CHECK-NEXT:   outer
// CHECK-NEXT:     work::leaf

// SUMMARY:      function outer calls=2
// SUMMARY-NEXT: function work::leaf calls=3
// SUMMARY-NEXT: dropped spans=0

// ERR: perfcc: wrote

#include <cstdio>

volatile int sink;

namespace work {
__attribute__((noinline)) int leaf(int v) { return v + sink; }
__attribute__((noinline)) int middle(int v) { return leaf(v) + leaf(v + 1); }
} // namespace work

__attribute__((noinline)) int outer(int v) {
  return v ? work::middle(v) : work::leaf(v);
}

int main() {
  int sum = outer(5) + outer(0) + 1;
  std::printf("sum %d\n", sum);
  return 0;
}
