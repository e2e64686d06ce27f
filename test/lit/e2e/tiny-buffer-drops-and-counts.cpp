// With PERFCC_BUFFER_MB=1, more threads record at once than the buffer has
// chunks for (each live thread holds one chunk of 256 KiB until it exits, and
// 1 MiB is 4 of them): spans are dropped, never silently. The run finishes
// normally, the trace is valid, its metadata counts the dropped spans, the
// summary counts the same number, and the summary still counts every call
// (its aggregates do not depend on the trace buffer). The exit says so on
// stderr, with the setting to raise.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'work\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/tiny -pthread
// RUN: env PERFCC_OUT=%t/out PERFCC_BUFFER_MB=1 %t/tiny 2> %t/stderr | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=WARN < %t/stderr
// RUN: %tracecheck trace --thread-name-only --collapse %t/out/tiny.*.trace.json > %t/view
// RUN: %tracecheck summary %t/out/tiny.*.summary.json >> %t/view
// RUN: FileCheck %s < %t/view

// OUT: done 6400

// WARN: perfcc: wrote
// WARN-NEXT: perfcc: {{[1-9][0-9]*}} calls are in the summary but not in the trace: the writer fell behind and PERFCC_BUFFER_MB=1 filled; raise it, or record fewer functions (PERFCC_TARGETS)

// CHECK:      trace: {{[0-9]+}} spans, {{[0-9]+}} threads, dropped=[[DROPPED:[1-9][0-9]*]]
// CHECK-NEXT: thread worker
// CHECK-NEXT:   work x100
// CHECK:      function work calls=6400
// CHECK-NEXT: dropped spans=[[DROPPED]] depth_overflows=0 unmatched_exits=0 abandoned_frames=0

#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

constexpr int Threads = 64, Calls = 100;
std::atomic<int> done{0};
volatile int sink;

__attribute__((noinline)) void work(int v) { sink = v; }

int main() {
  std::vector<std::thread> threads;
  for (int t = 0; t < Threads; ++t)
    threads.emplace_back([] {
      perf_thread_name("worker");
      for (int i = 0; i < Calls; ++i)
        work(i);
      // Stay alive, holding this thread's chunk, until every thread has
      // made its calls.
      done.fetch_add(Calls);
      while (done.load() < Threads * Calls)
        std::this_thread::yield();
    });
  for (std::thread &t : threads)
    t.join();
  std::printf("done %d\n", done.load());
  return 0;
}
