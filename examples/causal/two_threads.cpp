// Ground truth 1: two threads joined at the end of each round, one doing
// four times the work of the other. A round takes the long thread's time, so:
//  - slowing long_task slows the run linearly (every delayed ns counts);
//  - slowing short_task changes nothing until the short thread becomes the
//    longer one, then it counts fully: a threshold, with slack equal to the
//    difference between the two threads. That slack is three times the short
//    task's own cost, so the flat stretch stays wide on a faster CPU and on
//    a machine where the threads sometimes take turns.
// Variants for the real answer: -DSHORT_PERCENT=90 (70, 50) does that share
// of short_task's work, -DLONG_PERCENT of long_task's.
// Throughput: progress point "rounds".
// Usage: two_threads [rounds] [calls per round]
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#ifndef SHORT_PERCENT
#define SHORT_PERCENT 100
#endif
#ifndef LONG_PERCENT
#define LONG_PERCENT 100
#endif

namespace causal {

__attribute__((noinline)) uint64_t short_task(uint64_t i) {
  return burnPercent(20, SHORT_PERCENT, i);
}
__attribute__((noinline)) uint64_t long_task(uint64_t i) {
  return burnPercent(80, LONG_PERCENT, i);
}

} // namespace causal

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  int calls = argc > 2 ? std::atoi(argv[2]) : 100;
  uint64_t a = 0, b = 0;
  for (int round = 0; round < rounds; ++round) {
    std::thread shortThread([&] {
      for (int i = 0; i < calls; ++i)
        a += causal::short_task(uint64_t(i));
    });
    std::thread longThread([&] {
      for (int i = 0; i < calls; ++i)
        b += causal::long_task(uint64_t(i));
    });
    shortThread.join();
    longThread.join();
    PERF_PROGRESS("rounds");
  }
  std::printf("%llu\n", static_cast<unsigned long long>(a ^ b));
  return 0;
}
