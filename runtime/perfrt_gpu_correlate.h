//===- perfrt_gpu_correlate.h - GPU records joined to host functions ------===//
//
// Turns a run's GPU records (perfrt_gpu_store.h) into what the trace and the
// summary show, without a GPU and without CUPTI:
//  - each API call and each graph-node creation is charged to the innermost
//    instrumented function open on its thread at that time. The host spans
//    arrive per thread in completion order (a child completes before its
//    parent), so the first span that contains a point is the innermost one:
//    one pass over the spans, no stack kept, no CUPTI call in the probes;
//  - each kernel, copy and memset is joined to its launch by correlation id
//    (a graph launch fans out to every node it replays), and a replayed
//    kernel to the function that captured its node;
//  - records that overlap on one stream get overflow rows, so every row
//    nests;
//  - every fault is counted: records without a partner, records outside the
//    run, work that starts before its launch, untimed records.
// The result does not depend on the order the records arrived in.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_GPU_CORRELATE_H
#define PERFRT_GPU_CORRELATE_H

#include "perfrt_gpu_store.h"

#include <cstdint>
#include <vector>

namespace perfrt {

/// Faults found while correlating; the trace's metadata.gpu and the summary
/// print them.
struct GpuQuality {
  uint64_t records = 0;             // API and GPU records received
  uint64_t unmatchedLaunches = 0;   // launches with no GPU record
  uint64_t unmatchedGpuRecords = 0; // GPU records with no launch
  uint64_t outsideRun = 0;          // GPU records outside [run start, end]
  uint64_t startsBeforeLaunch = 0;  // GPU work starting before its launch
  uint64_t overlapMoves = 0;        // records moved to an overflow row
  uint64_t zeroTimestamps = 0;      // untimed records (not written)
};

/// Where a GPU record goes in the trace.
struct GpuWorkPlacement {
  int64_t api = -1;        // index of its launch in GpuData::apis, or -1
  uint32_t row = 0;        // 0: the stream's own row; k: overflow row k
  uint32_t capturedBy = 0; // function that captured its graph node, or 0
  bool written = false;    // timed and worth a trace event
};

/// What an API call or a graph-node creation was charged to.
struct GpuHostPoint {
  uint32_t fn = 0;         // innermost instrumented function, or 0
  uint64_t externalId = 0; // that call's External id (shared with it)
};

class GpuCorrelation {
public:
  /// \p runStartNs and \p runEndNs bound the run on CLOCK_MONOTONIC.
  GpuCorrelation(GpuData data, uint64_t runStartNs, uint64_t runEndNs);

  /// One host span (a completed instrumented call) of thread \p tid, in ns.
  /// Spans of one thread must come in completion order; threads may
  /// interleave. Returns the call's External id when an API call or a graph
  /// capture happened inside it (and it is the innermost such call), else 0.
  uint64_t onSpan(uint32_t tid, uint64_t startNs, uint64_t endNs, uint32_t fn);

  /// After the last span: joins GPU records to launches, places them on
  /// rows, counts the faults. Call once.
  void finish();

  const GpuData &data() const { return data_; }
  const std::vector<GpuHostPoint> &apiPoints() const { return apiPoints_; }
  const std::vector<GpuWorkPlacement> &placements() const { return work_; }
  /// Index of the GPU records launched by API call \p api (graph launches
  /// have several), in start order.
  const std::vector<uint32_t> &launched(uint32_t api) const;
  const GpuQuality &quality() const { return quality_; }
  /// The written GPU records by device, stream (synchronizations after the
  /// stream's work) and start: the order rows were assigned in, and the
  /// order the trace lists them in.
  const std::vector<uint32_t> &order() const { return order_; }
  /// The device of a context, learned from its records (sync records carry
  /// only the context); ~0u when unknown.
  uint32_t deviceOf(const perfrt_gpu_work &w) const;
  /// True when the API call starts GPU work (kernel launches, copies,
  /// memsets, graph launches): the calls that are owed a GPU record.
  bool isLaunch(const perfrt_gpu_api &a) const;

private:
  struct Point {
    uint64_t time;
    uint32_t index; // into apis (graph == false) or graphNodes
    bool graph;
  };
  struct ThreadPoints {
    std::vector<Point> points;      // by time
    std::vector<uint32_t> nextFree; // skip list over charged points
  };
  uint32_t nextFree(ThreadPoints &t, uint32_t i);

  GpuData data_;
  uint64_t runStart_, runEnd_;
  std::vector<GpuHostPoint> apiPoints_, graphPoints_;
  std::vector<GpuWorkPlacement> work_;
  std::vector<uint32_t> order_;
  std::vector<std::vector<uint32_t>> launched_;
  std::vector<std::pair<uint32_t, ThreadPoints>> threads_; // by tid
  std::vector<std::pair<uint32_t, uint32_t>> contextDevice_;
  GpuQuality quality_;
  uint64_t nextExternalId_ = 1;
  bool finished_ = false;
};

} // namespace perfrt

#endif // PERFRT_GPU_CORRELATE_H
