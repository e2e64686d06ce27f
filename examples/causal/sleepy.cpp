// Ground truth 7: time off the CPU. One thread makes the items (progress
// point "items"); each waits 2 ms in fetch_record() (a sleep standing for
// a read from disk or the network) and computes 20 units in parse_record().
// The wait is on the critical path: all of it counts, though the CPU is
// idle meanwhile (a sampling profiler sees parse_record only; Coz's virtual
// speedups do not count sleeps). The thread's timer slack is 1 ns, so a
// sleep lasts what it asks for (Linux adds 50 us by default) plus the cost
// of a sleep and a wake-up (10-20 us on a VM), which the long wait makes
// small: a variant that sleeps P% less saves close to P% of the call.
// Variants for the real answer: -DFETCH_PERCENT=90 (70, 50) sleeps that share
// of fetch_record's time.
// Usage: sleepy [items]
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/prctl.h>

#ifndef FETCH_PERCENT
#define FETCH_PERCENT 100
#endif

namespace causal {

__attribute__((noinline)) void fetch_record() {
  timespec wait{0, 2000000L * FETCH_PERCENT / 100};
  nanosleep(&wait, nullptr);
}

__attribute__((noinline)) uint64_t parse_record(uint64_t i) {
  return burn(20, i);
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 250;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  uint64_t total = 0;
  for (int i = 0; i < items; ++i) {
    causal::fetch_record();
    total += causal::parse_record(uint64_t(i));
    PERF_PROGRESS("items");
  }
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
