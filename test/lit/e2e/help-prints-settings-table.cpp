// PERFCC_HELP=1 prints the table of run-time settings (each variable, its
// default and meaning, and the aliases) on stderr at start-up, then the
// program runs and records as usual.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/helped
// RUN: env PERFCC_OUT=%t/out PERFCC_HELP=1 %t/helped > %t/stdout 2> %t/err
// RUN: cat %t/err %t/stdout | FileCheck %s

// CHECK:      perfcc runtime settings (environment variables):
// CHECK-NEXT:   PERFCC_OUT (default './perfcc-out'): folder for output files
// CHECK-NEXT:   PERFCC_MODE (default 'trace'): {{.+}}
// CHECK-NEXT:   PERFCC_TARGETS (default ''): {{.+}}
// CHECK-NEXT:   PERFCC_DELAY_TARGETS (default ''): {{.+}}
// CHECK-NEXT:   PERFCC_DELAY_NS (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_FREQUENCY (default '1'): {{.+}}
// CHECK-NEXT:   PERFCC_SPEEDUP_PERCENT (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_START_MS (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_DURATION_MS (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_CUPTI (default 'auto'): {{.+}}
// CHECK-NEXT:   PERFCC_NVTX (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_CUPTI_RAW (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_GPU_BUFFER_MB (default '256'): {{.+}}
// CHECK-NEXT:   PERFCC_BUFFER_MB (default '64'): {{.+}}
// CHECK-NEXT:   PERFCC_TRACE_MAX_MB (default '1024'): {{.+}}
// CHECK-NEXT:   PERFCC_TRACE_KEEP (default 'first'): {{.+}}
// CHECK-NEXT:   PERFCC_CPU_TIME (default '0'): {{.+}}
// CHECK-NEXT:   PERFCC_CLOCK (default 'auto'): {{.+}}
// CHECK-NEXT:   PERFCC_HELP (default '0'): {{.+}}
// CHECK-NEXT:   aliases: SPEED_BUMP_TARGETS, SPEED_BUMP_DELAY_NS, SPEED_BUMP_FREQUENCY, SPEED_BUMP_START_MS, SPEED_BUMP_DURATION_MS
// CHECK:      perfcc: wrote {{.*}}helped.{{[0-9]+}}.trace.json and
// CHECK:      main ran

#include <cstdio>

int main() {
  std::puts("main ran");
  return 0;
}
