// Stress: an instrumented library opened, called and closed LOOPS times
// (each dlopen registers its probes again, each dlclose unmaps them): the
// runtime keeps one id per function, its names stay readable after the
// library is gone, and every call is counted.
// Usage: dlopen_loop LIBRARY [LOOPS] [CALLS]
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  int loops = argc > 2 ? std::atoi(argv[2]) : 200;
  int calls = argc > 3 ? std::atoi(argv[3]) : 100;
  long total = 0;
  for (int i = 0; i < loops; ++i) {
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    auto plugin = reinterpret_cast<long (*)(int)>(dlsym(lib, "plugin_run"));
    if (!plugin)
      return 1;
    total += plugin(calls);
    dlclose(lib);
  }
  std::printf("plugin_run %d plugin_step %ld\n", loops, total);
  return 0;
}
