// Ground truth 4: two threads contending for one mutex. Each item, a thread
//  - convoy::update_shared() holds the mutex for 60 units of work;
//  - convoy::prepare_local() does 20 units without it.
// The mutex is busy 120 units for every two items while each thread needs
// only 80, so the lock is the bottleneck: update_shared is on the critical
// path through the lock (its time counts in full), prepare_local is not
// (its time hides behind the other thread's critical section, up to 40
// units of slack). A speed bump paid before the mutex is taken would miss
// that; one paid holding it (perfrt_locks.h) sees it.
// Variants for the real answer: -DLOCKED_PERCENT=90 (70, 50) does that
// share of update_shared's work; -DLOCAL_PERCENT likewise for prepare_local.
// Throughput: progress point "items".
// Usage: lock_convoy [items per thread]
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifndef LOCKED_PERCENT
#define LOCKED_PERCENT 100
#endif
#ifndef LOCAL_PERCENT
#define LOCAL_PERCENT 100
#endif

namespace causal {

std::mutex shared;
uint64_t sharedState = 1;

__attribute__((noinline)) void update_shared(uint64_t i) {
  std::lock_guard<std::mutex> hold(shared);
  sharedState ^= burnPercent(60, LOCKED_PERCENT, i ^ sharedState);
}

__attribute__((noinline)) uint64_t prepare_local(uint64_t i) {
  return burnPercent(20, LOCAL_PERCENT, i);
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 20000;
  auto worker = [items] {
    uint64_t local = 0;
    for (int i = 0; i < items; ++i) {
      local += causal::prepare_local(uint64_t(i));
      causal::update_shared(local);
      PERF_PROGRESS("items");
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  std::printf("%llu\n", static_cast<unsigned long long>(causal::sharedState));
  return 0;
}
