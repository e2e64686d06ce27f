// A shared library and the executable that links it, both built with perfcc,
// share one runtime: one trace and one summary, holding functions from both,
// with library calls nested under the executable's callers (and back).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\napp_step\nlib::compute\nlib::helper\napp_callback\n' > %t/targets
// RUN: %perfcc -O1 -g -DBUILD_LIB -shared -fPIC --perf-targets=%t/targets %s -o %t/libshared.so
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/app -L%t -lshared -Wl,-rpath,%t
// RUN: env PERFCC_OUT=%t/out %t/app 2>%t/err | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=ERR < %t/err
// RUN: %tracecheck trace --thread-name-only %t/out/app.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/app.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// OUT: result 9

// FILES:      app.PID.summary.json
// FILES-NEXT: app.PID.trace.json
// FILES-NOT:  .json

// ERR-COUNT-1: perfcc: wrote

// CHECK:      trace: 6 spans, 1 threads, dropped=0
// CHECK-NEXT: thread app
// CHECK-NEXT:   main
// CHECK-NEXT:     app_step
// CHECK-NEXT:       lib::compute
// CHECK-NEXT:         lib::helper
// CHECK-NEXT:         app_callback
// CHECK-NEXT:     app_step

// SUMMARY:      function app_callback calls=1
// SUMMARY-NEXT: function app_step calls=2
// SUMMARY-NEXT: function lib::compute calls=1
// SUMMARY-NEXT: function lib::helper calls=1
// SUMMARY-NEXT: function main calls=1

#include <cstdio>

volatile int sink;

namespace lib {
int compute(int v, int (*callback)(int));
}

#ifdef BUILD_LIB
namespace lib {
__attribute__((noinline)) int helper(int v) { return v * 2 + sink; }
__attribute__((noinline)) int compute(int v, int (*callback)(int)) {
  return callback(helper(v));
}
} // namespace lib
#else
__attribute__((noinline)) int app_callback(int v) { return v + 1; }

__attribute__((noinline)) int app_step(int v) {
  return v ? lib::compute(v, app_callback) : sink;
}

int main() {
  int r = app_step(4) + app_step(0);
  std::printf("result %d\n", r);
  return 0;
}
#endif
