// Deterministic CPU work for the ground-truth programs: a dependent chain of
// integer operations the optimizer cannot remove, so `units` of work take the
// same time on every run.
#ifndef EXAMPLES_CAUSAL_WORK_H
#define EXAMPLES_CAUSAL_WORK_H

#include <cstdint>

inline uint64_t burn(uint64_t units, uint64_t seed) {
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < units * 64; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

/// `units` of work done at `percent` of it: a real variant of a function
/// that does less work, for checking a prediction (scripts/ground-truth.py
/// builds each program with -D<FUNCTION>_PERCENT=90, 70 and 50).
inline uint64_t burnPercent(uint64_t units, uint64_t percent, uint64_t seed) {
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < units * 64 * percent / 100; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

#endif // EXAMPLES_CAUSAL_WORK_H
