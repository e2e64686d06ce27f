// A run killed with SIGKILL leaves its spill (.<program>.<pid>.spans), and
// `perfctl trace recover` turns it into a valid trace and summary that agree
// call for call, up to the last chunk on disk, with the cut said. The next
// run of the program in that folder names the unrecovered spill and the
// command. A spill cut in the middle of a frame (what a kill during a write
// leaves) keeps every whole chunk before it, and perfctl report says it was
// recovered and cut. A flight recorder's spill (PERFCC_TRACE_KEEP=last)
// recovers its last chunks. What is no spill is one line and exit status 1.
// The program calls tick() (10 us) until killed.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'tick\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/spin
// RUN: env PERFCC_OUT=%t/out PERFCC_TRACE_MAX_MB=64 timeout -s KILL 2 %t/spin || true
// RUN: ls -a %t/out | FileCheck %s --check-prefix=LEFT
// RUN: env PERFCC_OUT=%t/out %t/spin 0 2> %t/next.err
// RUN: FileCheck %s --check-prefix=NEXT < %t/next.err
// RUN: %perfctl trace recover %t/out/.spin.*.spans > %t/recover.out
// RUN: FileCheck %s --check-prefix=RECOVER < %t/recover.out
// RUN: ls -a %t/out | sed -n 's/^\.spin\.\([0-9]*\)\.spans$/\1/p' > %t/pid
// RUN: %tracecheck trace --collapse %t/out/spin.$(cat %t/pid).trace.json > %t/view
// RUN: %tracecheck summary %t/out/spin.$(cat %t/pid).summary.json >> %t/view
// RUN: FileCheck %s --check-prefix=VIEW < %t/view
// RUN: env PERFCC_OUT=%t/out %t/spin 0 2> %t/again.err
// RUN: not grep 'an earlier run' %t/again.err
//
// RUN: cp %t/out/.spin.*.spans %t/cut.spans && truncate -s -1000 %t/cut.spans
// RUN: mkdir %t/cut && %perfctl trace recover %t/cut.spans --out %t/cut > %t/cut.out
// RUN: FileCheck %s --check-prefix=CUT < %t/cut.out
// RUN: %perfctl report %t/cut/spin.*.trace.json | FileCheck %s --check-prefix=REPORT
//
// RUN: env PERFCC_OUT=%t/ring PERFCC_TRACE_KEEP=last PERFCC_TRACE_MAX_MB=1 timeout -s KILL 2 %t/spin || true
// RUN: mkdir %t/ring-out && %perfctl trace recover %t/ring/.spin.*.spans --out %t/ring-out > %t/ring.out
// RUN: FileCheck %s --check-prefix=RING < %t/ring.out
// RUN: %tracecheck summary %t/ring-out/spin.*.summary.json | FileCheck %s --check-prefix=RING-SUMMARY
//
// RUN: not %perfctl trace recover %t/targets 2> %t/bad.err
// RUN: FileCheck %s --check-prefix=BAD -DFILE=%t/targets < %t/bad.err

// LEFT: .spin.{{[0-9]+}}.spans
// LEFT-NOT: trace.json

// NEXT: perfcc: {{.*}}/.spin.[[PID:[0-9]+]].spans: an earlier run (pid [[PID]]) ended before writing its trace; recover it with: perfctl trace recover {{.*}}/.spin.[[PID]].spans

// RECOVER:      perfctl: recovered {{[1-9][0-9]*}} calls of spin (pid {{[0-9]+}}) from {{[1-9][0-9]*}} chunks: wrote {{.*}}.trace.json and {{.*}}.summary.json
// RECOVER-NEXT: perfctl: not in a spill: the calls still in the program's memory when it ended, and its measurement window, speed bumps and GPU activity

// VIEW:      trace: [[CALLS:[1-9][0-9]*]] spans, 1 threads, dropped=unknown (recovered)
// VIEW-NEXT: thread
// VIEW-NEXT:   tick x[[CALLS]]
// VIEW:      function tick calls=[[CALLS]]
// VIEW-NEXT: dropped spans=unknown

// CUT:      perfctl: recovered {{[1-9][0-9]*}} calls of spin
// CUT-NEXT: perfctl: the spill was cut: a chunk frame cut short at byte {{[0-9]+}}; the {{[0-9]+}} bytes after it were not read

// REPORT: hottest host function by self time: tick ({{.*}} in {{[1-9][0-9]*}} calls
// REPORT: warning: recovered from the spill of a run that ended early (perfctl trace recover); the spill was cut: a chunk frame cut short

// RING: perfctl: recovered {{[0-9]+}} calls of spin (pid {{[0-9]+}}) from {{[1-3]}} chunks
// RING-SUMMARY: function tick calls={{[1-9][0-9]*}}

// BAD: perfctl: trace recover: [[FILE]]: not a perfcc spill file (no spill header)

#include <perf/perf.h>

#include <chrono>
#include <cstdlib>

volatile unsigned long sink;

__attribute__((noinline)) void tick(unsigned long i) {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(10);
  while (std::chrono::steady_clock::now() < until)
    sink = i;
}

int main(int argc, char **argv) {
  long calls = argc > 1 ? std::atol(argv[1]) : -1; // -1: until killed
  for (long i = 0; calls < 0 || i < calls; ++i) {
    tick(static_cast<unsigned long>(i));
    PERF_PROGRESS("ticks");
  }
  return 0;
}
