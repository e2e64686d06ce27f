// A program whose call tree is known, for perfctl export's tests: two named
// threads, one calling leaf() 4 times through left_work(), the other twice
// through right_work(), each from worker(); the main thread recursing
// through depth() four levels deep to one leaf() call.
#include <perf/perf.h>

#include <thread>

volatile unsigned sink;

__attribute__((noinline)) void leaf(int n) {
  for (int k = 0; k < n; ++k)
    sink = sink + unsigned(k);
}

__attribute__((noinline)) void left_work() {
  for (int i = 0; i < 4; ++i)
    leaf(20000);
}

__attribute__((noinline)) void right_work() {
  for (int i = 0; i < 2; ++i)
    leaf(10000);
}

__attribute__((noinline)) int depth(int n) {
  if (n == 0) {
    leaf(5000);
    return 0;
  }
  int below = depth(n - 1);
  // Work after the call: no tail call for the optimizer to turn into a
  // loop (clang 19 does, at -O1, with `return depth(n - 1) + 1`), and
  // self time of its own: a frame with none has no folded line, and a
  // frame with a few ns of it reads 0 now and then on a clock that steps
  // 10 ns (CI's llvm19 suite once missed main;depth that way).
  for (int k = 0; k < 1000; ++k)
    sink = sink + unsigned(below + k);
  return below + 1;
}

__attribute__((noinline)) void worker(const char *name, bool left) {
  perf_thread_name(name);
  if (left)
    left_work();
  else
    right_work();
}

int main() {
  // One after the other, so the threads' ids come in this order.
  std::thread a(worker, "left", true);
  a.join();
  std::thread b(worker, "right", false);
  b.join();
  return depth(3) == 3 ? 0 : 1;
}
