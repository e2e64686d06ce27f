//===- perfrt_work.h - the work a call reports: bytes moved, FLOPs done ---===//
//
// perf_work(bytes, flops) (perf/perf.h) charges the innermost recorded call
// open on the calling thread with the bytes it moved and the floating-point
// operations it did; the summary and the trace's function table then carry
// each function's totals, and perfctl report divides them by the
// function's time: GB/s and FLOP/s per function, a roofline's two axes. A
// report outside any recorded call (or beyond the shadow stack's depth) is
// counted apart, as unattributed.
//
// The totals are per function, not per thread: a report costs three relaxed
// atomic adds into a table indexed by function id, whose pages are mapped
// on first use. Kernels report once a call, not per row.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_WORK_H
#define PERFRT_WORK_H

#include <cstdint>

namespace perfrt {

struct WorkTotals {
  uint64_t bytes = 0, flops = 0;
  uint64_t reports = 0; ///< perf_work calls
};

/// Adds one report to function \p fn's totals (any thread).
void workAdd(uint32_t fn, uint64_t bytes, uint64_t flops);

/// Function \p fn's totals; false when it reported none.
bool workOf(uint32_t fn, WorkTotals &out);

/// The reports made outside any recorded call.
WorkTotals workUnattributed();

/// In a forked child: the parent's work is not the child's.
void workAfterFork();

} // namespace perfrt

#endif // PERFRT_WORK_H
