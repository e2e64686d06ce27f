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
// RUN: %python -c "import json, glob; d = json.load(open(glob.glob('%t/summary/work.*.summary.json')[0])); [print(f['name'], 'calls', f['calls'], 'work', f['work']['bytes'], f['work']['flops'], f['work']['reports'], 'rate', 'ok' if abs(f['work']['bytes_per_s'] * f['inclusive_ns']['total'] / 1e9 - f['work']['bytes']) <= 1e-5 * f['work']['bytes'] and abs(f['work']['flops_per_byte'] * f['work']['bytes'] - f['work']['flops']) <= 1e-5 * max(1, f['work']['flops']) else 'wrong') if 'work' in f else print(f['name'], 'calls', f['calls'], 'no work') for f in sorted(d['functions'], key=lambda f: f['name'])]; u = d['work_unattributed']; print('unattributed', u['bytes'], u['flops'], u['reports'])" \
// RUN:   | FileCheck %s --check-prefix=SUMMARY
// RUN: env PERFCC_OUT=%t/trace %t/work
// RUN: %python -c "import json, glob; d = json.load(open(glob.glob('%t/trace/work.*.trace.json')[0])); [print(f['name'], f.get('work')) for f in sorted(d['metadata']['functions'], key=lambda f: f['name'])]" \
// RUN:   | FileCheck %s --check-prefix=TRACE
// RUN: %perfctl report --json %t/trace/work.*.trace.json > %t/report.json
// RUN: %python -c "import json; d = json.load(open('%t/report.json')); [print(w['name'], 'calls', w['calls'], 'bytes', w['bytes'], 'flops', w['flops'], 'GB/s', 'ok' if abs(w['bytes_per_s'] * w['inclusive_ns'] / 1e9 - w['bytes']) <= 1e-6 * w['bytes'] else 'wrong') for w in d['host']['work']]" \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: %perfctl report %t/trace/work.*.trace.json | FileCheck %s --check-prefix=TEXT

// SUMMARY:      inner calls 30 work 3000 12000 30 rate ok
// SUMMARY-NEXT: outer calls 2 work 2000 0 2 rate ok
// SUMMARY-NEXT: sleepy calls 1 work 2000000000 4000000000 1 rate ok
// SUMMARY-NEXT: unattributed 7 7 1

// TRACE:      inner {'bytes': 3000, 'flops': 12000, 'reports': 30}
// TRACE-NEXT: outer {'bytes': 2000, 'flops': 0, 'reports': 2}
// TRACE-NEXT: sleepy {'bytes': 2000000000, 'flops': 4000000000, 'reports': 1}

// Most time first: sleepy sleeps 20 ms, outer holds every inner call of
// the main thread.
// REPORT:      sleepy calls 1 bytes 2000000000 flops 4000000000 GB/s ok
// REPORT-NEXT: outer calls 2 bytes 2000 flops 0 GB/s ok
// REPORT-NEXT: inner calls 30 bytes 3000 flops 12000 GB/s ok

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
