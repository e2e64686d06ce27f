// `middle` catches the exception from `thrower`, calls `cleanup` in its
// handler, and rethrows: thrower's span ends [unwind] before cleanup starts,
// cleanup ends normally inside middle, and middle ends [unwind] before main's
// handler calls `handle`.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nmiddle\nthrower\ncleanup\nhandle\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/rethrow
// RUN: env PERFCC_OUT=%t/out %t/rethrow | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only %t/out/rethrow.*.trace.json | FileCheck %s

// OUT: cleanup
// OUT: caught boom

// CHECK:      trace: 5 spans, 1 threads, dropped=0
// CHECK-NEXT: thread rethrow
// CHECK-NEXT:   main
// CHECK-NEXT:     middle [unwind]
// CHECK-NEXT:       thrower [unwind]
// CHECK-NEXT:       cleanup{{$}}
// CHECK-NEXT:     handle{{$}}

#include <cstdio>
#include <stdexcept>

volatile int sink;

__attribute__((noinline)) void thrower() { throw std::runtime_error("boom"); }
__attribute__((noinline)) void cleanup() { std::puts("cleanup"); }

__attribute__((noinline)) void middle() {
  try {
    thrower();
  } catch (...) {
    cleanup();
    throw;
  }
}

__attribute__((noinline)) void handle(const char *what) {
  std::printf("caught %s\n", what);
}

int main() {
  try {
    middle();
  } catch (const std::exception &e) {
    handle(e.what());
  }
  return 0;
}
