// PERFCC_MODE=summary writes the summary (every call counted, mode
// "summary", no trace named) and no trace file; the line on stderr names
// just the summary.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/summ
// RUN: env PERFCC_OUT=%t/out PERFCC_MODE=summary %t/summ 2>%t/err
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: %tracecheck summary %t/out/summ.*.summary.json | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=JSON < %t/out/summ.*.summary.json
// RUN: FileCheck %s --check-prefix=ERR -DOUT=%t/out < %t/err
// RUN: count 1 < %t/err

// FILES:     summ.PID.summary.json
// FILES-NOT: trace

// SUMMARY:      function main calls=1
// SUMMARY-NEXT: function work calls=1000
// SUMMARY-NEXT: dropped spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=0

// JSON: "mode":"summary","trace":"",

// ERR: {{^}}perfcc: wrote [[OUT]]/summ.[[#]].summary.json{{$}}

volatile int sink;
__attribute__((noinline)) void work(int i) { sink = i; }
int main() {
  for (int i = 0; i < 1000; ++i)
    work(i);
  return 0;
}
