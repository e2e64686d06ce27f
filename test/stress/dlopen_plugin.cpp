// The library dlopen_loop.cpp opens and closes: plugin_run calls
// plugin_step CALLS times and returns how many.
static volatile long sink;

__attribute__((noinline)) static long plugin_step(int i) {
  sink = sink + i;
  return 1;
}

extern "C" long plugin_run(int calls) {
  long n = 0;
  for (int i = 0; i < calls; ++i)
    n += plugin_step(i);
  return n;
}
