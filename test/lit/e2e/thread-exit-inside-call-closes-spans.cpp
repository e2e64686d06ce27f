// A thread that leaves through pthread_exit from inside instrumented calls
// has its spans closed when it exits, not at the end of the process:
// pthread_exit unwinds the thread's stack (a forced unwind, which runs the
// frames' cleanups), so they end [unwind]. The thread keeps the kernel name
// it set with pthread_setname_np; the main thread's spans are unaffected.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nbody\nquit\nlater\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/texit -pthread
// RUN: env PERFCC_OUT=%t/out %t/texit
// RUN: %tracecheck trace --thread-name-only %t/out/texit.*.trace.json | FileCheck %s

// CHECK:      trace: 4 spans, 2 threads, dropped=0
// CHECK-NEXT: thread texit
// CHECK-NEXT:   main{{$}}
// CHECK-NEXT:     later{{$}}
// CHECK-NEXT: thread quitter
// CHECK-NEXT:   body [unwind]
// CHECK-NEXT:     quit [unwind]

#include <pthread.h>

#include <chrono>
#include <thread>

volatile int sink;

__attribute__((noinline)) void quit() { pthread_exit(nullptr); }
__attribute__((noinline)) void body() {
  quit();
  sink = 1; // not reached
}
__attribute__((noinline)) void later() { sink = 2; }

void *start(void *) {
  pthread_setname_np(pthread_self(), "quitter");
  body();
  return nullptr;
}

int main() {
  // main's span starts first; the thread's spans end before `later` starts.
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  pthread_t t;
  pthread_create(&t, nullptr, start, nullptr);
  pthread_join(t, nullptr);
  later();
  return 0;
}
