// SIGTERM arrives while four threads are busy making instrumented calls (and
// their spans are being streamed to the trace file): the trace is still valid
// JSON whose spans nest on every thread, the open calls of the threads are
// [unfinished], the summary agrees with itself, and the process dies of
// SIGTERM.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'spin\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/busy -pthread
// Run with SIGTERM at its default disposition, whatever the test runner set.
// RUN: env PERFCC_OUT=%t/out %python -c "import os, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])" \
// RUN:   %t/busy > %t/stdout 2> %t/err; echo "rc=$?" > %t/rc
// RUN: FileCheck %s --check-prefix=RC < %t/rc
// RUN: FileCheck %s --check-prefix=ERR < %t/err
// RUN: %tracecheck trace --thread-name-only --collapse --max-depth 1 %t/out/busy.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/busy.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// RC: rc=143
// ERR: perfcc: wrote {{.*}}/busy.{{[0-9]+}}.trace.json and

// CHECK:      trace: {{[0-9]+}} spans, 4 threads, dropped=0
// CHECK-COUNT-4: {{^}}  spin [unfinished]{{$}}

// SUMMARY:      function spin calls=4
// SUMMARY-NEXT: function work calls={{[0-9]+}}
// SUMMARY-NEXT: dropped spans=0

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

std::atomic<int> running{0};
volatile int sink;

// About a microsecond per call, so the trace stays small.
__attribute__((noinline)) void work(int v) {
  for (int i = 0; i < 3000; ++i)
    sink = v + i;
}

__attribute__((noinline)) void spin() {
  running.fetch_add(1);
  for (int i = 0;; ++i)
    work(i);
}

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back(spin);
  while (running.load() < 4)
    std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  std::raise(SIGTERM);
  for (std::thread &t : threads)
    t.join(); // not reached
  return 0;
}
