// Two std::threads, named through perf_thread_name, run at the same time:
// each gets its own tree under its own name, apart from the main thread's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nrun_alpha\nrun_beta\nstep\ninner\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/named -pthread
// RUN: env PERFCC_OUT=%t/out %t/named
// RUN: %tracecheck trace --collapse %t/out/named.*.trace.json > %t/view
// RUN: FileCheck %s --check-prefix=HEAD < %t/view
// RUN: FileCheck %s --check-prefix=ALPHA < %t/view
// RUN: FileCheck %s --check-prefix=BETA < %t/view
// RUN: %tracecheck summary --threads %t/out/named.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// The main thread starts first; the two workers in either order.
// HEAD:      trace: 25 spans, 3 threads, dropped=0
// HEAD-NEXT: thread named tid=PID
// HEAD-NEXT:   main
// HEAD-NEXT: thread {{alpha|beta}} tid=T1
// HEAD:      thread {{alpha|beta}} tid=T2

// ALPHA:      thread alpha tid=T{{[12]}}
// ALPHA-NEXT:   run_alpha
// ALPHA-NEXT:     step x5
// ALPHA-NEXT:       inner

// BETA:      thread beta tid=T{{[12]}}
// BETA-NEXT:   run_beta
// BETA-NEXT:     step x6
// BETA-NEXT:       inner

// SUMMARY:      function inner calls=11
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: function run_alpha calls=1
// SUMMARY-NEXT: function run_beta calls=1
// SUMMARY-NEXT: function step calls=11
// SUMMARY-NEXT: thread alpha calls=11
// SUMMARY-NEXT: thread beta calls=13
// SUMMARY-NEXT: thread named calls=1
// SUMMARY-NEXT: dropped spans=0

#include <perf/perf.h>

#include <atomic>
#include <thread>

std::atomic<int> arrived{0};
volatile int sink;

__attribute__((noinline)) void inner(int i) { sink = i; }
__attribute__((noinline)) void step(int i) { inner(i); }

// Both workers are inside their outer function before either goes on.
static void meet() {
  arrived.fetch_add(1);
  while (arrived.load() < 2)
    std::this_thread::yield();
}

__attribute__((noinline)) void run_alpha() {
  meet();
  for (int i = 0; i < 5; ++i)
    step(i);
}

__attribute__((noinline)) void run_beta() {
  meet();
  for (int i = 0; i < 6; ++i)
    step(i);
}

int main() {
  std::thread a([] {
    perf_thread_name("alpha");
    run_alpha();
  });
  std::thread b([] {
    perf_thread_name("beta");
    run_beta();
  });
  a.join();
  b.join();
  return 0;
}
