//===- JsonReport.h - perfctl report --json ---------------------*- C++ -*-===//
//
// The report for programs: one JSON object whose keys (report/ReportKeys.h,
// listed in docs/perfctl.md) stay in the order written. Times are integer
// nanoseconds, percentages plain numbers, a function that is no
// instrumented function is null, and every ranked list holds the top
// --top rows (all with --top 0) next to a count of all.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_JSONREPORT_H
#define PERFCC_DRIVER_PERFCTL_REPORT_JSONREPORT_H

#include "report/Analysis.h"
#include "trace/TraceModel.h"

#include <nlohmann/json.hpp>

#include <string>

namespace perfcc::perfctl {

nlohmann::ordered_json reportJson(const TraceModel &model,
                                  const TraceReport &report,
                                  const ReportOptions &options,
                                  const std::string &file);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_JSONREPORT_H
