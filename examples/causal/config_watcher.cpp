// Ground truth 8: a function whose speedup hurts, with no lock involved. A
// worker thread makes the items (progress point "items"), 40 units of work
// each, from lookup tables derived from a configuration. A watcher thread
// loops: check_config() (150 units: reading and parsing the configuration)
// then publishes a new version of it, as a watcher that republishes on every
// poll does. Each new version makes the worker rebuild its tables
// (rebuild_tables(), 20 units) before its next item. The watcher is not on
// the worker's path, but the faster check_config runs, the more versions
// per second and the more rebuilds per item: making it faster slows the
// program down, smoothly (one rebuild per version while a check takes
// longer than an item: an item costs about 40 + 20 x 46/150 units, 46), with
// no lock hand-off whose order could flip.
// Variants for the real answer: -DCHECK_PERCENT=90 (70, 50) does that share
// of check_config's work.
// Usage: config_watcher [items]
#include "work.h"

#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#ifndef CHECK_PERCENT
#define CHECK_PERCENT 100
#endif

namespace causal {

std::atomic<uint64_t> configVersion{0};

__attribute__((noinline)) uint64_t check_config(uint64_t i) {
  return burnPercent(150, CHECK_PERCENT, i);
}

__attribute__((noinline)) uint64_t rebuild_tables(uint64_t version) {
  return burn(20, version);
}

__attribute__((noinline)) uint64_t make_item(uint64_t i, uint64_t tables) {
  return burn(40, i ^ tables);
}

} // namespace causal

int main(int argc, char **argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 40000;
  std::atomic<bool> done{false};
  uint64_t made = 0;
  uint64_t parsed = 0;
  std::thread watcher([&] {
    perf_thread_name("watcher");
    for (uint64_t i = 0; !done.load(std::memory_order_relaxed); ++i) {
      parsed ^= causal::check_config(i);
      causal::configVersion.fetch_add(1, std::memory_order_release);
    }
  });
  std::thread worker([&] {
    perf_thread_name("worker");
    uint64_t seen = ~uint64_t(0);
    uint64_t tables = 0;
    for (int i = 0; i < items; ++i) {
      uint64_t version = causal::configVersion.load(std::memory_order_acquire);
      if (version != seen) {
        tables = causal::rebuild_tables(version);
        seen = version;
      }
      made += causal::make_item(uint64_t(i), tables);
      PERF_PROGRESS("items");
    }
    done = true;
  });
  worker.join();
  watcher.join();
  std::printf("%llu\n", static_cast<unsigned long long>(made ^ parsed));
  return 0;
}
