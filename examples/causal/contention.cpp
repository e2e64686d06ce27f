// Ground truth 5: a function whose speedup hurts, through a lock. A worker
// thread makes the items (progress point "items"); each takes the lock for
// about 10 units of work and does about 30 without it. A poller thread
// loops: poll_stats() (about 40 units, no lock), then collects under the
// same lock (about 60 units). The poller is not on the worker's path, but it
// competes with it for the lock: the faster poll_stats runs, the larger the
// share of time the poller holds the lock the worker needs, and the fewer
// items the worker makes. Slowing poll_stats down speeds the program up;
// speeding it up slows the program down: negative impact, as a stats or
// logging thread that shares a lock with the hot path.
//
// Why a ticket lock and random work lengths: with std::mutex the answer was
// a cliff, not a curve (50% less poll_stats work gave +251% one day and -65%
// another). An unfair mutex lets the poller take it again before the
// sleeping worker wakes, and which thread wins it several times in a row
// flips with small timing changes. A fair, spinning lock hands it over in
// arrival order, and work lengths drawn at random (uniform, half to one and
// a half times the mean, a fixed seed per thread) keep the two loops from
// locking into one phase: the worker's wait is then the poller's share of the
// lock times its remaining hold, smooth in poll_stats's length.
// Variants for the real answer: -DPOLL_PERCENT=90 (70, 50) does that share
// of poll_stats's work.
// Usage: contention [items]
#include "work.h"

#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#ifndef POLL_PERCENT
#define POLL_PERCENT 100
#endif

namespace causal {

/// First come, first served: each locker takes a ticket and spins until it
/// is served.
class TicketLock {
public:
  void lock() {
    uint32_t mine = next_.fetch_add(1, std::memory_order_relaxed);
    while (serving_.load(std::memory_order_acquire) != mine)
      __builtin_ia32_pause();
  }
  void unlock() { serving_.fetch_add(1, std::memory_order_release); }

private:
  std::atomic<uint32_t> next_{0};
  std::atomic<uint32_t> serving_{0};
};

/// Work lengths around `mean` units, uniform in [mean/2, 3*mean/2].
class Lengths {
public:
  explicit Lengths(uint64_t seed) : state_(seed | 1) {}
  uint64_t around(uint64_t mean) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return mean / 2 + state_ % (mean + 1);
  }

private:
  uint64_t state_;
};

TicketLock shared;
uint64_t sharedState = 1;

__attribute__((noinline)) uint64_t make_item(uint64_t i, Lengths &lengths) {
  shared.lock();
  sharedState ^= burn(lengths.around(10), i ^ sharedState);
  shared.unlock();
  return burn(lengths.around(30), i);
}

__attribute__((noinline)) uint64_t poll_stats(uint64_t i, Lengths &lengths) {
  return burnPercent(lengths.around(40), POLL_PERCENT, i);
}

__attribute__((noinline)) void collect_stats(uint64_t v, Lengths &lengths) {
  shared.lock();
  sharedState ^= burn(lengths.around(60), v ^ sharedState);
  shared.unlock();
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 30000;
  std::atomic<bool> done{false};
  uint64_t made = 0;
  std::thread poller([&] {
    perf_thread_name("poller");
    causal::Lengths lengths(0x9e3779b97f4a7c15ull);
    for (uint64_t i = 0; !done.load(std::memory_order_relaxed); ++i)
      causal::collect_stats(causal::poll_stats(i, lengths), lengths);
  });
  std::thread worker([&] {
    perf_thread_name("worker");
    causal::Lengths lengths(0xd1b54a32d192ed03ull);
    for (int i = 0; i < items; ++i) {
      made += causal::make_item(uint64_t(i), lengths);
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
