// What the virtual-speedup pause tests (lock-pause.cpp,
// lock-pause-before.cpp) share: a clock, a spin on it, a wait that sleeps,
// and pause::works, the 2 ms call their targets select.
#ifndef PERFCC_TEST_LIT_E2E_INPUTS_PAUSE_TIMING_H
#define PERFCC_TEST_LIT_E2E_INPUTS_PAUSE_TIMING_H

#include <atomic>
#include <time.h>

static long long nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}
// Waits for the other thread asleep, not spinning: tests run two at a time
// on a 2-core machine.
static void waitUntil(const std::atomic<int> &value, int atLeast) {
  while (value.load() < atLeast) {
    timespec ts{0, 20000};
    nanosleep(&ts, nullptr);
  }
}
static void spin(long long ns) {
  long long end = nowNs() + ns;
  while (nowNs() < end) {
  }
}

namespace pause {
__attribute__((noinline)) static void works() { spin(2000000); }
} // namespace pause

#endif // PERFCC_TEST_LIT_E2E_INPUTS_PAUSE_TIMING_H
