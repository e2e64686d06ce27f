//===- perfrt_registry.h - the instrumented functions of the process ------===//
//
// Every instrumented DSO's constructor hands its descriptor section to the
// runtime (__perfcc_register). The registry gives each function a dense id,
// copies its names (so a dlclose'd library's strings are never read after
// it is gone) and decides, once, whether its probes record: the descriptor's
// `enabled` word is what the hot path reads.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_REGISTRY_H
#define PERFRT_REGISTRY_H

#include "perfcc/ABI.h"
#include "perfcc/Selection.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace perfrt {

struct FunctionRecord {
  const char *name;
  const char *mangled;
  const char *file;
  uint32_t line;
  uint32_t flags;
  bool enabled; // recorded
  bool delayed; // gets speed bumps
};

class Registry {
public:
  static constexpr uint32_t PageSize = 1024;
  static constexpr uint32_t MaxPages = 1024; // a million functions

  /// Registers [begin, end). Ids start at 1; 0 marks "not registered".
  /// \p selection (may be null) decides which probes record; \p recordAll
  /// false disables recording (PERFCC_MODE=off). \p delays (may be null)
  /// decides which functions get speed bumps.
  void add(perfcc_desc *begin, perfcc_desc *end,
           const perfcc::Selection *selection, bool recordAll,
           const perfcc::Selection *delays);

  /// The record of \p id (1..size()); readable from any thread while others
  /// register, since pages never move.
  const FunctionRecord &get(uint32_t id) const {
    return pages[(id - 1) / PageSize].load(
        std::memory_order_acquire)[(id - 1) % PageSize];
  }
  uint32_t size() const { return count.load(std::memory_order_acquire); }

  /// Which rules of the run-time targets file matched some function.
  std::vector<bool> usedRules(size_t ruleCount) const;
  /// The same for the delay targets file.
  std::vector<bool> usedDelayRules(size_t ruleCount) const;

  /// Forgets everything (tests only).
  void resetForTest();

private:
  // Plain arrays, not containers: the registry is constant-initialized and
  // never destroyed (the exit-time flush reads it after static destructors).
  static constexpr unsigned MaxRules = 4096;
  std::atomic<FunctionRecord *> pages[MaxPages] = {};
  std::atomic<uint32_t> count{0};
  bool used[MaxRules] = {};
  bool usedDelay[MaxRules] = {};
};

extern Registry gRegistry;

} // namespace perfrt

#endif // PERFRT_REGISTRY_H
