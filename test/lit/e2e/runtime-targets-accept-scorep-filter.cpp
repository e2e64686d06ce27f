// PERFCC_TARGETS also takes a Score-P filter file: what no rule excludes
// records, a later INCLUDE re-selects what an EXCLUDE dropped, and a file
// excluded by a SCOREP_FILE_NAMES block records nothing, whatever the region
// rules say.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nouter\nwork::*\n' > %t/build.targets
// RUN: %perfcc -O1 -g --perf-targets=%t/build.targets %s -o %t/scorep
// RUN: printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE work::*\n  INCLUDE work::leaf\nSCOREP_REGION_NAMES_END\n' > %t/keep-leaf.filter
// RUN: env PERFCC_OUT=%t/out1 PERFCC_TARGETS=%t/keep-leaf.filter %t/scorep
// RUN: %tracecheck trace --thread-name-only %t/out1/scorep.*.trace.json | FileCheck %s --check-prefix=REGIONS
// RUN: printf 'SCOREP_REGION_NAMES_BEGIN\n  INCLUDE main\nSCOREP_REGION_NAMES_END\nSCOREP_FILE_NAMES_BEGIN\n  EXCLUDE */runtime-targets-accept-scorep-filter.cpp\nSCOREP_FILE_NAMES_END\n' > %t/by-file.filter
// RUN: env PERFCC_OUT=%t/out2 PERFCC_TARGETS=%t/by-file.filter %t/scorep
// RUN: %tracecheck trace --thread-name-only %t/out2/scorep.*.trace.json | FileCheck %s --check-prefix=NONE

// REGIONS:      trace: 5 spans, 1 threads, dropped=0
// REGIONS-NEXT: thread scorep
// REGIONS-NEXT:   main
// REGIONS-NEXT:     outer
// REGIONS-NEXT:       work::leaf
// REGIONS-NEXT:       work::leaf
// REGIONS-NEXT:     outer

// NONE:      trace: 0 spans, 0 threads, dropped=0

#include <cstdio>

volatile int sink;

namespace work {
__attribute__((noinline)) int leaf(int v) { return v + sink; }
__attribute__((noinline)) int middle(int v) { return leaf(v) + leaf(v + 1); }
} // namespace work

__attribute__((noinline)) int outer(int v) { return v ? work::middle(v) : v; }

int main() {
  std::printf("sum %d\n", outer(5) + outer(0));
  return 0;
}
