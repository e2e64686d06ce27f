// Ground truth 5: a function whose speedup hurts. A worker thread makes the
// items (progress point "items"); each takes a mutex for 10 units of work and
// does 30 without it. A poller thread loops: poll_stats() (20 units, no
// mutex), then collects under the same mutex (40 units). The poller is not
// on the worker's path, but it competes with it for the mutex: the faster
// poll_stats runs, the more often the poller holds the mutex the worker
// needs, and the fewer items the worker makes. Slowing poll_stats down
// speeds the program up; speeding it up slows the program down: negative
// impact, as a stats or logging thread that shares a lock with the hot path.
// Variants for the real answer: -DPOLL_PERCENT=90 (70, 50) does that share
// of poll_stats's work.
// Usage: contention [items]
#include "work.h"

#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifndef POLL_PERCENT
#define POLL_PERCENT 100
#endif

namespace causal {

std::mutex shared;
uint64_t sharedState = 1;

__attribute__((noinline)) uint64_t make_item(uint64_t i) {
  {
    std::lock_guard<std::mutex> hold(shared);
    sharedState ^= burn(10, i ^ sharedState);
  }
  return burn(30, i);
}

__attribute__((noinline)) uint64_t poll_stats(uint64_t i) {
  return burnPercent(20, POLL_PERCENT, i);
}

__attribute__((noinline)) void collect_stats(uint64_t v) {
  std::lock_guard<std::mutex> hold(shared);
  sharedState ^= burn(40, v ^ sharedState);
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 20000;
  std::atomic<bool> done{false};
  uint64_t made = 0;
  std::thread poller([&] {
    perf_thread_name("poller");
    for (uint64_t i = 0; !done.load(std::memory_order_relaxed); ++i)
      causal::collect_stats(causal::poll_stats(i));
  });
  std::thread worker([&] {
    perf_thread_name("worker");
    for (int i = 0; i < items; ++i) {
      made += causal::make_item(uint64_t(i));
      PERF_PROGRESS("items");
    }
    done = true;
  });
  worker.join();
  poller.join();
  std::printf("%llu\n",
              static_cast<unsigned long long>(made ^ causal::sharedState));
  return 0;
}
