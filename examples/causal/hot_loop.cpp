// Ground truth 6: a function too hot to delay at every call (PERFCC_FREQUENCY,
// perfctl sweep --frequency). One thread makes the items (progress point
// "items"); each is 200 calls of step() (one unit of work, about 100 ns)
// and one of finish_item() (40 units). step() is on the critical path: all
// of its time counts. Delaying every 20th call by 20 times more keeps the
// delays large against the clock's resolution and the probes' cost.
// Variants for the real answer: -DSTEP_PERCENT=90 (70, 50) does that share of
// step's work.
// Usage: hot_loop [items]
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>

#ifndef STEP_PERCENT
#define STEP_PERCENT 100
#endif

namespace causal {

__attribute__((noinline)) uint64_t step(uint64_t i) {
  return burnPercent(1, STEP_PERCENT, i);
}

__attribute__((noinline)) uint64_t finish_item(uint64_t v) {
  return burn(40, v);
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 4000;
  uint64_t total = 0;
  for (int i = 0; i < items; ++i) {
    uint64_t v = uint64_t(i);
    for (int s = 0; s < 200; ++s)
      v += causal::step(v + uint64_t(s));
    total += causal::finish_item(v);
    PERF_PROGRESS("items");
  }
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
