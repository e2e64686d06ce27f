// When SIGINT is ignored at start-up (nohup, a background job), the runtime
// leaves it ignored: a raise(SIGINT) does nothing, the program finishes
// normally with status 0, and the files are written at exit with every span
// finished.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nstage\nwork\ninterrupt_now\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/nohup
// RUN: env PERFCC_OUT=%t/out %python -c "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])" \
// RUN:   %t/nohup > %t/stdout 2> %t/err; echo "rc=$?" > %t/rc
// RUN: cat %t/rc %t/stdout | FileCheck %s --check-prefix=RC
// RUN: %tracecheck trace --thread-name-only %t/out/nohup.*.trace.json | FileCheck %s

// RC:      rc=0
// RC-NEXT: survived

// CHECK:      trace: 6 spans, 1 threads, dropped=0
// CHECK-NEXT: thread nohup
// CHECK-NEXT:   main{{$}}
// CHECK-NEXT:     stage{{$}}
// CHECK-NEXT:       work{{$}}
// CHECK-NEXT:       interrupt_now{{$}}
// CHECK-NEXT:       work{{$}}
// CHECK-NEXT:     work{{$}}

#include <csignal>
#include <cstdio>

volatile int sink;
__attribute__((noinline)) void work(int v) { sink = v; }
__attribute__((noinline)) void interrupt_now() { std::raise(SIGINT); }
__attribute__((noinline)) void stage() {
  work(1);
  interrupt_now();
  work(2);
}

int main() {
  stage();
  work(3);
  std::puts("survived");
  return 0;
}
