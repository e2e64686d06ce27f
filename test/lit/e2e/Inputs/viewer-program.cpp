// A small program whose trace has what a viewer must show: two named
// threads with nested calls, an exception's [unwind] spans, and main's span
// left [unfinished] by perf_flush. Used by trace-loads-in-speedscope.test.
#include <perf/perf.h>

#include <cstdio>
#include <stdexcept>
#include <thread>

volatile int sink;

__attribute__((noinline)) void fail(int i) {
  if (i == 3)
    throw std::runtime_error("three");
  sink = i;
}

__attribute__((noinline)) void step(int i) {
  for (int k = 0; k < 1000; ++k)
    sink = k;
  fail(i);
}

__attribute__((noinline)) void run(const char *name) {
  perf_thread_name(name);
  for (int i = 0; i < 10; ++i) {
    try {
      step(i);
    } catch (const std::exception &) {
      sink = -1;
    }
  }
}

int main() {
  std::thread a(run, "left");
  std::thread b(run, "right");
  a.join();
  b.join();
  run("main");
  perf_flush();
  return 0;
}
