// Ground truth 4b: two threads contending for one mutex whose critical
// section is long and whose hand-off always goes to the waiter. Each item, a
// thread
//  - causal::append_journal() holds the mutex for 1,200 units of work;
//  - causal::encode_record() does 500 units without it.
// The mutex is busy 2,400 units for every two items while each thread needs
// only 1,700, so the lock is the bottleneck: append_journal is on the
// critical path through the lock, encode_record has slack (the other
// thread's critical section, less its own work: about 700 units).
// What differs from lock_convoy: there the lock-free work (20 units, a few
// microseconds) is shorter than the time the kernel takes to wake the
// waiter, so the thread that just unlocked often comes back and takes the
// mutex again first, and who wins flips the program's speed from one run to
// the next. Here the lock-free work outlasts any wake-up, so the woken
// waiter always has the mutex first: the real answer holds still, and the
// method is judged on the lock, not on the scheduler's coin.
// Variants for the real answer: -DJOURNAL_PERCENT=90 (70, 50) does that
// share of append_journal's work; -DENCODE_PERCENT likewise for
// encode_record.
// Throughput: progress point "items".
// Usage: lock_handoff [items per thread]
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifndef JOURNAL_PERCENT
#define JOURNAL_PERCENT 100
#endif
#ifndef ENCODE_PERCENT
#define ENCODE_PERCENT 100
#endif

namespace causal {

std::mutex journal;
uint64_t journalState = 1;

__attribute__((noinline)) void append_journal(uint64_t record) {
  std::lock_guard<std::mutex> hold(journal);
  journalState ^= burnPercent(1200, JOURNAL_PERCENT, record ^ journalState);
}

__attribute__((noinline)) uint64_t encode_record(uint64_t i) {
  return burnPercent(500, ENCODE_PERCENT, i);
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 3000;
  auto worker = [items] {
    uint64_t record = 0;
    for (int i = 0; i < items; ++i) {
      record += causal::encode_record(uint64_t(i));
      causal::append_journal(record);
      PERF_PROGRESS("items");
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  std::printf("%llu\n", static_cast<unsigned long long>(causal::journalState));
  return 0;
}
