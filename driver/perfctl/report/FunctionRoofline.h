//===- FunctionRoofline.h - bytes and FLOPs per function, per second -*- C++
//-*-===//
//
// The functions whose calls reported their work with perf_work (bytes moved,
// floating-point operations; perf/perf.h), from the trace's function table,
// divided by their inclusive time in the trace: GB/s and FLOP/s per
// function, a roofline's two axes, and the FLOPs per byte that say which
// ceiling applies. Most time first.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_FUNCTIONROOFLINE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_FUNCTIONROOFLINE_H

#include "report/HotFunctions.h"
#include "trace/TraceModel.h"

#include <cstdint>
#include <vector>

namespace perfcc::perfctl {

struct FunctionRooflineRow {
  NameId name = NoName;
  std::uint64_t calls = 0;
  TimeNs inclusive = 0; ///< total over its calls
  std::uint64_t bytes = 0, flops = 0, reports = 0;
  double bytesPerS = 0, flopsPerS = 0; ///< over the inclusive time
  double flopsPerByte = 0;             ///< 0 without bytes
};

/// Every function of \p model's work table, with its time from \p hot
/// (a function that reported work but has no call in the trace keeps time 0
/// and rates 0); most inclusive time first, then name.
std::vector<FunctionRooflineRow>
analyzeFunctionRoofline(const TraceModel &model, const HotFunctions &hot);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_FUNCTIONROOFLINE_H
