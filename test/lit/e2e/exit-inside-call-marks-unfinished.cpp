// exit() called from inside instrumented calls: the files are written at
// exit, with the calls still open (main, shutdown) marked [unfinished] and
// the exit status kept.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nshutdown\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/quitter
// RUN: env PERFCC_OUT=%t/out %t/quitter; echo "rc=$?" > %t/rc
// RUN: FileCheck %s --check-prefix=RC < %t/rc
// RUN: %tracecheck trace --thread-name-only %t/out/quitter.*.trace.json | FileCheck %s

// RC: rc=3

// CHECK:      trace: 3 spans, 1 threads, dropped=0
// CHECK-NEXT: thread quitter
// CHECK-NEXT:   main [unfinished]
// CHECK-NEXT:     shutdown [unfinished]
// CHECK-NEXT:       work{{$}}

#include <cstdlib>

volatile int sink;
__attribute__((noinline)) void work() { sink = 1; }
__attribute__((noinline)) void shutdown() {
  work();
  std::exit(3);
}

int main() {
  shutdown();
  return 0;
}
