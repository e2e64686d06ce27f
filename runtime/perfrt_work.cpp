//===- perfrt_work.cpp - the work a call reports: bytes moved, FLOPs done -===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_work.h"

#include "perfrt_record.h"
#include "perfrt_registry.h"
#include "perfrt_runtime.h"
#include "perfrt_thread.h"

#include "perf/perf.h"

#include <sys/mman.h>

#include <atomic>

namespace perfrt {
namespace {

struct WorkCounters {
  std::atomic<uint64_t> bytes, flops, reports;
};

// By function id, in the registry's pages (ids start at 1). Constant
// initialized and never destroyed: the exit-time flush reads it after
// static destructors.
std::atomic<WorkCounters *> pages[Registry::MaxPages] = {};
WorkCounters unattributed{};

/// The page of \p fn, mapped on first use; null when mmap fails.
WorkCounters *pageOf(uint32_t fn, bool create) {
  std::atomic<WorkCounters *> &slot = pages[(fn - 1) / Registry::PageSize];
  WorkCounters *page = slot.load(std::memory_order_acquire);
  if (page || !create)
    return page;
  void *mem = mmap(nullptr, Registry::PageSize * sizeof(WorkCounters),
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return nullptr;
  WorkCounters *fresh = static_cast<WorkCounters *>(mem);
  // Two threads may map one page at once: the loser gives its copy back.
  if (!slot.compare_exchange_strong(page, fresh, std::memory_order_acq_rel)) {
    munmap(mem, Registry::PageSize * sizeof(WorkCounters));
    return page;
  }
  return fresh;
}

void add(WorkCounters &c, uint64_t bytes, uint64_t flops) {
  c.bytes.fetch_add(bytes, std::memory_order_relaxed);
  c.flops.fetch_add(flops, std::memory_order_relaxed);
  c.reports.fetch_add(1, std::memory_order_relaxed);
}

WorkTotals totalsOf(const WorkCounters &c) {
  return {c.bytes.load(std::memory_order_relaxed),
          c.flops.load(std::memory_order_relaxed),
          c.reports.load(std::memory_order_relaxed)};
}

void clear(WorkCounters &c) {
  c.bytes.store(0, std::memory_order_relaxed);
  c.flops.store(0, std::memory_order_relaxed);
  c.reports.store(0, std::memory_order_relaxed);
}

} // namespace

void workAdd(uint32_t fn, uint64_t bytes, uint64_t flops) {
  WorkCounters *page = fn && fn <= Registry::MaxPages * Registry::PageSize
                           ? pageOf(fn, true)
                           : nullptr;
  add(page ? page[(fn - 1) % Registry::PageSize] : unattributed, bytes, flops);
}

bool workOf(uint32_t fn, WorkTotals &out) {
  if (!fn || fn > Registry::MaxPages * Registry::PageSize)
    return false;
  WorkCounters *page = pageOf(fn, false);
  if (!page)
    return false;
  out = totalsOf(page[(fn - 1) % Registry::PageSize]);
  return out.reports != 0;
}

WorkTotals workUnattributed() { return totalsOf(unattributed); }

void workAfterFork() {
  clear(unattributed);
  for (std::atomic<WorkCounters *> &slot : pages)
    if (WorkCounters *page = slot.load(std::memory_order_relaxed))
      for (uint32_t i = 0; i < Registry::PageSize; ++i)
        clear(page[i]);
}

} // namespace perfrt

using namespace perfrt;

PERFRT_API void perfcc_work(uint64_t bytes, uint64_t flops) {
  if (gRt.state.load(std::memory_order_relaxed) != Lifecycle::Running)
    return;
  // The innermost recorded call; none (or one past the shadow stack's
  // depth, not on it) leaves the report unattributed.
  ThreadState *t = tlsState;
  uint32_t depth = t ? t->depth : 0;
  uint32_t fn =
      depth && depth <= MaxDepth && !t->overflow ? t->stack[depth - 1].fn : 0;
  workAdd(fn, bytes, flops);
}

PERFRT_NOINSTR_END
