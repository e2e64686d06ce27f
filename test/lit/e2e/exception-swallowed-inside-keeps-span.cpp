// `guarded` catches (and swallows) the exception its callee `thrower` throws:
// thrower's span ends [unwind], guarded's own span ends normally when it
// returns, and the next call `next` is guarded's sibling.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nguarded\nthrower\nnext\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/swallow
// RUN: env PERFCC_OUT=%t/out %t/swallow | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only %t/out/swallow.*.trace.json | FileCheck %s

// OUT: result -1

// CHECK:      trace: 4 spans, 1 threads, dropped=0
// CHECK-NEXT: thread swallow
// CHECK-NEXT:   main
// CHECK-NEXT:     guarded{{$}}
// CHECK-NEXT:       thrower [unwind]
// CHECK-NEXT:     next{{$}}

#include <cstdio>
#include <stdexcept>

volatile int sink;

__attribute__((noinline)) int thrower(int v) {
  if (v)
    throw std::logic_error("no");
  return sink;
}

__attribute__((noinline)) int guarded(int v) {
  try {
    return thrower(v);
  } catch (const std::exception &) {
    return -1;
  }
}

__attribute__((noinline)) int next(int v) { return v + sink; }

int main() {
  int r = guarded(1);
  r = next(r);
  std::printf("result %d\n", r);
  return 0;
}
