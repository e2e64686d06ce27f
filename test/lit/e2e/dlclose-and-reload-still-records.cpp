// A perfcc-built plugin that is dlopen'ed, called, dlclose'd, then loaded and
// called again: the calls of both loads are recorded (the second load's
// descriptors are registered afresh, even where the loader maps the library
// at the same address), and the first load's names survive its unloading.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nuse_plugin\nplugin_entry\n' > %t/targets
// RUN: %perfcc -O1 -g -DBUILD_PLUGIN -shared -fPIC --perf-targets=%t/targets %s -o %t/plugin.so
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/reload -ldl
// RUN: env PERFCC_OUT=%t/out %t/reload %t/plugin.so | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only %t/out/reload.*.trace.json | FileCheck %s

// OUT: first 2, second 3

// CHECK:      trace: 5 spans, 1 threads, dropped=0
// CHECK-NEXT: thread reload
// CHECK-NEXT:   main
// CHECK-NEXT:     use_plugin
// CHECK-NEXT:       plugin_entry
// CHECK-NEXT:     use_plugin
// CHECK-NEXT:       plugin_entry

#include <cstdio>

volatile int sink;

#ifdef BUILD_PLUGIN
extern "C" __attribute__((noinline)) int plugin_entry(int v) {
  return v + 1 + sink;
}
#else
#include <dlfcn.h>

__attribute__((noinline)) int use_plugin(const char *path, int v) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return -1;
  }
  auto entry = reinterpret_cast<int (*)(int)>(dlsym(handle, "plugin_entry"));
  int r = entry ? entry(v) : -1;
  dlclose(handle);
  return r;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  int first = use_plugin(argv[1], 1);
  int second = use_plugin(argv[1], 2);
  std::printf("first %d, second %d\n", first, second);
  return 0;
}
#endif
