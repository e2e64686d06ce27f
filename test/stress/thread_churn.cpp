// Stress: THREADS short-lived threads, at most 8 alive at a time, each
// making CALLS calls: every thread's state is created and finished, and
// every call reaches the summary (and the trace) exactly once.
// Usage: thread_churn [THREADS] [CALLS]
#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace stress {
std::atomic<long> done{0};
__attribute__((noinline)) void step(int i) {
  done.fetch_add(1 + 0 * i, std::memory_order_relaxed);
}
__attribute__((noinline)) void life(int calls) {
  for (int i = 0; i < calls; ++i)
    step(i);
}
} // namespace stress

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 10000;
  int calls = argc > 2 ? std::atoi(argv[2]) : 10;
  for (int made = 0; made < threads;) {
    std::vector<std::thread> batch;
    for (int i = 0; i < 8 && made < threads; ++i, ++made)
      batch.emplace_back([calls] { stress::life(calls); });
    for (std::thread &t : batch)
      t.join();
  }
  std::printf("life %d step %ld\n", threads, stress::done.load());
  return 0;
}
