// Ground truth 12: a hot function inside another probed one (a second
// program for the class of hot_loop.cpp, swept with --frequency 20). One
// thread makes the items (progress point "items"); each is one call of
// checksum_block(), which calls mix_word() 400 times (half a unit of work,
// about 50 ns, each) and does 10 units itself, then one of seal_item() (20
// units). mix_word() is on the critical path, called from a function that
// has probes of its own, with calls half as long as hot_loop's step().
// Variants for the real answer: -DMIX_PERCENT=90 (70, 50) does about that
// share of mix_word's work (whole iterations of its loop).
// Usage: hot_nested [items]
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>

#ifndef MIX_PERCENT
#define MIX_PERCENT 100
#endif

namespace causal {

__attribute__((noinline)) uint64_t mix_word(uint64_t v) {
  // Half a unit: burnPercent's loop at half the percentage.
  return burnPercent(1, MIX_PERCENT / 2, v);
}

__attribute__((noinline)) uint64_t checksum_block(uint64_t i) {
  uint64_t v = burn(10, i);
  for (uint64_t w = 0; w < 400; ++w)
    v += mix_word(v + w);
  return v;
}

__attribute__((noinline)) uint64_t seal_item(uint64_t v) { return burn(20, v); }

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 4000;
  uint64_t total = 0;
  for (int i = 0; i < items; ++i) {
    total += causal::seal_item(causal::checksum_block(uint64_t(i)));
    PERF_PROGRESS("items");
  }
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
