// A library built with perfcc and loaded with dlopen after start-up registers
// its functions with the runtime already running: its calls appear in the
// program's one trace, nested under the program's caller.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nload_and_call\nplugin_entry\nplugin_inner\n' > %t/targets
// RUN: %perfcc -O1 -g -DBUILD_PLUGIN -shared -fPIC --perf-targets=%t/targets %s -o %t/plugin.so
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/host -ldl
// RUN: env PERFCC_OUT=%t/out %t/host %t/plugin.so | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: %tracecheck trace --thread-name-only %t/out/host.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/host.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// OUT: plugin says 43

// FILES:      host.PID.summary.json
// FILES-NEXT: host.PID.trace.json
// FILES-NOT:  .json

// CHECK:      trace: 5 spans, 1 threads, dropped=0
// CHECK-NEXT: thread host
// CHECK-NEXT:   main
// CHECK-NEXT:     load_and_call
// CHECK-NEXT:       plugin_entry
// CHECK-NEXT:         plugin_inner
// CHECK-NEXT:       plugin_entry

// SUMMARY:      function load_and_call calls=1
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: function plugin_entry calls=2
// SUMMARY-NEXT: function plugin_inner calls=1

#include <cstdio>

volatile int sink;

#ifdef BUILD_PLUGIN
__attribute__((noinline)) int plugin_inner(int v) { return v + 1 + sink; }
extern "C" __attribute__((noinline)) int plugin_entry(int v) {
  return v ? plugin_inner(v) : sink;
}
#else
#include <dlfcn.h>

__attribute__((noinline)) int load_and_call(const char *path) {
  void *handle = dlopen(path, RTLD_NOW);
  if (!handle) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return -1;
  }
  auto entry = reinterpret_cast<int (*)(int)>(dlsym(handle, "plugin_entry"));
  return entry ? entry(42) + entry(0) : -1;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  std::printf("plugin says %d\n", load_and_call(argv[1]));
  return 0;
}
#endif
