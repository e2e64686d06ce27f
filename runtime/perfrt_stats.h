//===- perfrt_stats.h - per-function aggregates for the summary -----------===//
//
// What the summary reports per function and thread: calls, inclusive and
// exclusive time (total, max) and their distributions for p50/p99
// (perfcc/DurationHistogram.h: fixed size, no allocation, one increment per
// call). Plain data: zero-initialized memory is a valid empty FnStats.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_STATS_H
#define PERFRT_STATS_H

#include "perfcc/DurationHistogram.h"

#include <cstddef>
#include <cstdint>

namespace perfrt {

using perfcc::histBucket;
using perfcc::histBucketMid;
using perfcc::HistBuckets;
using perfcc::Histogram;

using perfcc::FnStats;

constexpr uint32_t StatsPageSize = 256;
constexpr uint32_t StatsPages = 4096; // covers the registry's million ids

/// Bump allocator over mmap'd blocks: each has exactly one user at a time.
/// The blocks are chained (each starts with the one before and its size),
/// so an exited thread's can be given back whole (arenaRelease).
struct Arena {
  char *next;
  size_t left;
  char *blocks; // the newest block
};

/// Zeroed memory from \p arena (16-byte aligned); null when mmap fails.
void *arenaAlloc(Arena &arena, size_t bytes);

/// Unmaps every block of \p arena and leaves it empty: whatever pointed
/// into it must be gone first.
void arenaRelease(Arena &arena);

/// Per-function data of type T by function id, created on first use from an
/// arena. Plain data, zero = empty.
template <typename T> struct FunctionTable {
  T **pages[StatsPages];

  T *find(uint32_t fn) const {
    T *const *page = pages[fn / StatsPageSize];
    return page ? page[fn % StatsPageSize] : nullptr;
  }
  /// The entry of \p fn, created from \p arena on first use; null when
  /// memory ran out.
  __attribute__((always_inline)) T *get(uint32_t fn, Arena &arena) {
    T **page = pages[fn / StatsPageSize];
    T *s = page ? page[fn % StatsPageSize] : nullptr;
    if (__builtin_expect(s != nullptr, 1))
      return s;
    return create(fn, arena);
  }
  T *create(uint32_t fn, Arena &arena) {
    uint32_t page = fn / StatsPageSize;
    if (page >= StatsPages)
      return nullptr;
    if (!pages[page]) {
      pages[page] =
          static_cast<T **>(arenaAlloc(arena, StatsPageSize * sizeof(T *)));
      if (!pages[page])
        return nullptr;
    }
    T *s = static_cast<T *>(arenaAlloc(arena, sizeof(T)));
    pages[page][fn % StatsPageSize] = s;
    return s;
  }
};

using StatsTable = FunctionTable<FnStats>;

} // namespace perfrt

#endif // PERFRT_STATS_H
