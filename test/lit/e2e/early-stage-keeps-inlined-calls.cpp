// --perf-stage=early instruments before inlining, so a small function that
// the optimizer inlines keeps its span at every call; the default (late)
// stage instruments after inlining, when only its caller is left.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nouter\nsmall\n' > %t/targets
// RUN: %perfcc -O2 -g --perf-stage=early --perf-targets=%t/targets %s -o %t/early
// RUN: %perfcc -O2 -g --perf-targets=%t/targets %s -o %t/late
// RUN: env PERFCC_OUT=%t/out %t/early
// RUN: env PERFCC_OUT=%t/out %t/late
// RUN: %tracecheck trace --thread-name-only --collapse %t/out/early.*.trace.json | FileCheck %s --check-prefix=EARLY
// RUN: %tracecheck trace --thread-name-only --collapse %t/out/late.*.trace.json | FileCheck %s --check-prefix=LATE

// EARLY:      trace: 5 spans, 1 threads, dropped=0
// EARLY-NEXT: thread early
// EARLY-NEXT:   main
// EARLY-NEXT:     outer
// EARLY-NEXT:       small x3

// LATE:      trace: 2 spans, 1 threads, dropped=0
// LATE-NEXT: thread late
// LATE-NEXT:   main
// LATE-NEXT:     outer

volatile int sink;

static inline int small(int v) { return v * 2 + 1; }

__attribute__((noinline)) int outer(int v) {
  return small(v) + small(v + 1) + small(v + 2);
}

int main() {
  sink = outer(sink);
  return 0;
}
