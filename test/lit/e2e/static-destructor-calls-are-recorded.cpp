// Calls made by a static object's destructor, after main returns, are still
// recorded: the output is written after the program's own static
// destructors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nsave_state\nLogger::~Logger\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/statics
// RUN: env PERFCC_OUT=%t/out %t/statics
// RUN: %tracecheck trace --thread-name-only %t/out/statics.*.trace.json | FileCheck %s

// CHECK:      trace: 4 spans, 1 threads, dropped=0
// CHECK-NEXT: thread statics
// CHECK-NEXT:   main
// CHECK-NEXT:     save_state
// CHECK-NEXT:   Logger::~Logger
// CHECK-NEXT:     save_state

volatile int sink;
__attribute__((noinline)) void save_state(int v) { sink = v; }

struct Logger {
  __attribute__((noinline)) ~Logger() { save_state(2); }
};
Logger logger;

int main() {
  save_state(1);
  return 0;
}
