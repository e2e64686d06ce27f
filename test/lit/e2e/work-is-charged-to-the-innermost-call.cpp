// perf_work(bytes, flops) charges the innermost recorded call open on the
// calling thread, on any thread, summed per function; a report outside any
// recorded call is counted apart. The summary carries each function's
// totals and its rates over its inclusive time, the trace's function table
// the totals, and perfctl report divides them by the calls' time in the
// trace: GB/s, GFLOP/s and FLOPs per byte per function.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'outer\ninner\nsleepy\n' > %t/targets
// RUN: %perfcc -O1 -g -pthread --perf-targets=%t/targets %s -o %t/work
// RUN: env PERFCC_OUT=%t/summary PERFCC_MODE=summary %t/work
// RUN: %python %S/Inputs/workcheck.py summary %t/summary/work.*.summary.json \
// RUN:   | FileCheck %s --check-prefix=SUMMARY
// RUN: env PERFCC_OUT=%t/trace %t/work
// RUN: %python %S/Inputs/workcheck.py trace %t/trace/work.*.trace.json \
// RUN:   | FileCheck %s --check-prefix=TRACE
// RUN: %perfctl report --json %t/trace/work.*.trace.json > %t/report.json
// RUN: %python %S/Inputs/workcheck.py report %t/report.json \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: %perfctl report %t/trace/work.*.trace.json \
// RUN:   | FileCheck %s --check-prefix=TEXT

// SUMMARY:      inner calls 30 work 3000 12000 30 rate ok
// SUMMARY-NEXT: outer calls 2 work 2000 0 2 rate ok
// SUMMARY-NEXT: sleepy calls 1 work 2000000000 4000000000 1 rate ok
// SUMMARY-NEXT: unattributed 7 7 1

// TRACE:      inner {'bytes': 3000, 'flops': 12000, 'reports': 30}
// TRACE-NEXT: outer {'bytes': 2000, 'flops': 0, 'reports': 2}
// TRACE-NEXT: sleepy {'bytes': 2000000000, 'flops': 4000000000, 'reports': 1}

// The rows come most time first (which of sleepy's 20 ms sleep and outer's
// two calls takes longer depends on the machine's load), listed here by
// name.
// REPORT:      order most time first
// REPORT-NEXT: inner calls 30 bytes 3000 flops 12000 GB/s ok
// REPORT-NEXT: outer calls 2 bytes 2000 flops 0 GB/s ok
// REPORT-NEXT: sleepy calls 1 bytes 2000000000 flops 4000000000 GB/s ok

// TEXT:      Work per function: bytes moved and FLOPs done (perf_work)
// TEXT:      function {{.*}}GB/s{{.*}}GFLOP/s{{.*}}FLOP/byte
// TEXT:      sleepy {{.*}} 2.00 GB {{.*}} 4.00 G {{.*}} 2.00

#include <perf/perf.h>

#include <chrono>
#include <thread>

volatile int sink;

__attribute__((noinline)) void inner(int i) {
  sink = i;
  perf_work(100, 400);
}

__attribute__((noinline)) void outer() {
  perf_work(1000, 0); // before its callees: outer's own
  for (int i = 0; i < 10; ++i)
    inner(i);
}

__attribute__((noinline)) void sleepy() {
  perf_work(2000000000ull, 4000000000ull);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

int main() {
  // main is not in the targets: this report is made outside any recorded
  // call.
  perf_work(7, 7);
  outer();
  outer();
  std::thread t([] {
    for (int i = 0; i < 10; ++i)
      inner(i);
  });
  t.join();
  sleepy();
  return 0;
}
