//===- LaunchIndex.h - each GPU record's launch, by correlation -*- C++ -*-===//
//
// CUPTI gives a CUDA API call and the GPU records it caused the same
// correlation id; a CUDA graph launch is one call with several records. This
// joins them: each GPU record's launch call (or none: its API record was
// dropped, or it ran outside the traced part of the run), and each call's
// records. The counts of what did not join are data-quality findings.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_LAUNCHINDEX_H
#define PERFCC_DRIVER_PERFCTL_REPORT_LAUNCHINDEX_H

#include "trace/TraceModel.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace perfcc::perfctl {

class LaunchIndex {
public:
  explicit LaunchIndex(const TraceModel &model);

  /// Per GPU record (model.gpuRecords' order), its launch call's index in
  /// model.apiCalls, or -1.
  std::vector<std::int64_t> launchOf;
  /// Per API call, how many GPU records it launched.
  std::vector<std::uint32_t> recordsOf;

  std::uint64_t recordsWithoutLaunch = 0;
  /// Calls that launch work by their name (kernel, graph, copy and memset
  /// launches) with no GPU record, as indices into model.apiCalls; a driver
  /// call made inside a runtime call (cudaLaunchKernel calling
  /// cuLaunchKernel) is not one, as the runtime's count has it.
  std::vector<std::size_t> launchesWithoutRecords;
  /// Records that start before their launch call does (clocks disagree).
  std::uint64_t recordsBeforeLaunch = 0;
  /// API calls sharing a correlation id with an earlier one (the first is
  /// the launch).
  std::uint64_t duplicateCorrelations = 0;

  /// The launch call of GPU record \p record, or nullptr.
  const ApiCall *launch(const TraceModel &model, std::size_t record) const {
    std::int64_t at = launchOf[record];
    return at < 0 ? nullptr : &model.apiCalls[std::size_t(at)];
  }
};

/// Whether a CUDA API call of this name puts work on the GPU: kernel and
/// graph launches, copies and memsets (runtime and driver API), the
/// runtime's own rule (runtime/perfrt_gpu_correlate.cpp).
bool launchesGpuWork(std::string_view apiName);

/// Whether a CUDA API call of this name launches a CUDA graph (runtime or
/// driver API): one call, as many records as the graph has nodes.
bool launchesGraph(std::string_view apiName);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_LAUNCHINDEX_H
