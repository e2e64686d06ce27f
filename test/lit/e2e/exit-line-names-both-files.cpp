// At exit the runtime prints exactly one line on stderr, naming the trace and
// the summary it wrote, both in PERFCC_OUT and named <program>.<pid>.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/named-files
// RUN: env PERFCC_OUT=%t/out %t/named-files > %t/stdout 2> %t/err
// RUN: cat %t/stdout %t/err | FileCheck %s -DOUT=%t/out
// RUN: count 1 < %t/err
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES

// CHECK:      pid=[[#PID:]]
// CHECK-NEXT: {{^}}perfcc: wrote [[OUT]]/named-files.[[#PID]].trace.json and [[OUT]]/named-files.[[#PID]].summary.json{{$}}

// FILES:      named-files.PID.summary.json
// FILES-NEXT: named-files.PID.trace.json

#include <cstdio>
#include <unistd.h>

int main() {
  std::printf("pid=%d\n", int(getpid()));
  return 0;
}
