// 50 short-lived threads come and go, at most 5 at a time: every call of
// every thread is in the trace (nothing dropped, 50 worker trees) and in the
// summary, whose per-thread calls add up to each function's calls.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'task\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/pool -pthread
// RUN: env PERFCC_OUT=%t/out %t/pool | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --collapse --thread-name-only %t/out/pool.*.trace.json > %t/view
// RUN: FileCheck %s < %t/view
// RUN: grep -c '^thread worker$' %t/view | FileCheck %s --check-prefix=THREADS
// RUN: grep -c '^    work x100$' %t/view | FileCheck %s --check-prefix=THREADS
// RUN: %tracecheck summary %t/out/pool.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// OUT: done 5000

// CHECK:      trace: 5050 spans, 50 threads, dropped=0
// CHECK-NEXT: thread worker
// CHECK-NEXT:   task
// CHECK-NEXT:     work x100
// CHECK-NEXT: thread worker

// THREADS: {{^}}50{{$}}

// SUMMARY:      function task calls=50
// SUMMARY-NEXT: function work calls=5000
// SUMMARY-NEXT: dropped spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=0

#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

std::atomic<long> done{0};

__attribute__((noinline)) void work(int i) { done.fetch_add(1 + 0 * i); }

__attribute__((noinline)) void task() {
  for (int i = 0; i < 100; ++i)
    work(i);
}

int main() {
  for (int round = 0; round < 10; ++round) {
    std::vector<std::thread> pool;
    for (int t = 0; t < 5; ++t)
      pool.emplace_back([] {
        perf_thread_name("worker");
        task();
      });
    for (std::thread &t : pool)
      t.join();
  }
  std::printf("done %ld\n", done.load());
  return 0;
}
