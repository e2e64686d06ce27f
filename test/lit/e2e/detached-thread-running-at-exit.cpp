// A detached thread is still busy in instrumented calls when main returns:
// the exit-time flush still writes a valid trace (no overlapping spans), the
// thread's open calls are [unfinished] under its name, and the summary
// agrees with itself.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nspin\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/detached -pthread
// RUN: env PERFCC_OUT=%t/out %t/detached
// RUN: %tracecheck trace --thread-name-only --collapse --max-depth 1 %t/out/detached.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/detached.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// CHECK:      trace: {{[0-9]+}} spans, 2 threads, dropped=0
// CHECK-NEXT: thread detached
// CHECK-NEXT:   main{{$}}
// CHECK-NEXT: thread spinner
// CHECK-NEXT:   spin [unfinished]

// SUMMARY:      function main calls=1
// SUMMARY-NEXT: function spin calls=1
// SUMMARY-NEXT: function work calls={{[1-9][0-9]*}}

#include <perf/perf.h>

#include <atomic>
#include <chrono>
#include <thread>

std::atomic<bool> started{false};
volatile int sink;

__attribute__((noinline)) void work(int v) {
  for (int i = 0; i < 2000; ++i)
    sink = v + i;
}

__attribute__((noinline)) void spin() {
  started = true;
  for (int i = 0;; ++i)
    work(i);
}

int main() {
  std::thread([] {
    perf_thread_name("spinner");
    spin();
  }).detach();
  while (!started)
    std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return 0;
}
