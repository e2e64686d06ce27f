// Stress: a signal or perf_flush() arriving while THREADS threads are inside
// probes. Each thread calls stress::outer(), which calls stress::inner()
// (about 5 us) twice, in a loop; after MS milliseconds the main thread sends
// the process SIGTERM (HOW = term: the runtime writes the files from its
// handler and the process dies of the signal) or calls perf_flush() (HOW =
// flush: the files are written and recording stops while the threads go on).
// Either way the trace and the summary are whole and agree call for call; calls
// cut by the signal or the flush are closed as unfinished.
//
// Usage: signal_storm [THREADS] [MS] [term|flush]
#include <perf/perf.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace stress {
std::atomic<bool> stop{false};
volatile long sink;
// About 5 us of work a call: the threads are always in a probe or between
// two, but not faster than the writer thread can take their spans.
__attribute__((noinline)) void inner(long i) {
  for (int k = 0; k < 5000; ++k)
    sink = i + k;
}
__attribute__((noinline)) void outer(long i) {
  inner(i);
  inner(i + 1);
}
} // namespace stress

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  int ms = argc > 2 ? std::atoi(argv[2]) : 200;
  bool term = argc <= 3 || std::strcmp(argv[3], "term") == 0;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([] {
      for (long i = 0; !stress::stop.load(std::memory_order_relaxed); ++i)
        stress::outer(i);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  if (term)
    std::raise(SIGTERM); // does not return: the runtime re-raises it
  perf_flush();
  stress::stop = true;
  for (std::thread &t : pool)
    t.join();
  std::printf("flushed\n");
  return 0;
}
