// In C (no exception cleanups), a thread that leaves through pthread_exit
// from inside instrumented calls has its open spans closed when it exits,
// marked [unfinished], and ending before the main thread's next call starts.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nbody\nquit\nlater\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/cexit -pthread
// RUN: env PERFCC_OUT=%t/out %t/cexit
// RUN: %tracecheck trace --thread-name-only %t/out/cexit.*.trace.json | FileCheck %s
// RUN: %python -c "import json, glob, sys; ev = json.load(open(glob.glob(sys.argv[1])[0]))['traceEvents']; x = {e['name']: e for e in ev if e['ph'] == 'X'}; sys.exit(0 if x['body']['ts'] + x['body']['dur'] <= x['later']['ts'] else 'body ends after later starts')" '%t/out/cexit.*.trace.json'

// CHECK:      trace: 4 spans, 2 threads, dropped=0
// CHECK-NEXT: thread cexit
// CHECK-NEXT:   main{{$}}
// CHECK-NEXT:     later{{$}}
// CHECK-NEXT: thread cquitter
// CHECK-NEXT:   body [unfinished]
// CHECK-NEXT:     quit [unfinished]

#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

volatile int sink;

__attribute__((noinline)) void quit(void) { pthread_exit(0); }
__attribute__((noinline)) void body(void) {
  quit();
  sink = 1; // not reached
}
__attribute__((noinline)) void later(void) { sink = 2; }

static void *start(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cquitter");
  body();
  return 0;
}

int main(void) {
  struct timespec ms = {0, 1000000};
  nanosleep(&ms, 0); // main's span starts first
  pthread_t t;
  pthread_create(&t, 0, start, 0);
  pthread_join(t, 0);
  later();
  return 0;
}
