//===- TextReport.h - perfctl report as text or Markdown --------*- C++ -*-===//
//
// The report for people: the run, the answer, the hottest functions (per
// thread too when there are several), GPU busy and idle per device and
// stream, GPU idle charged to host functions, launch delay and queue depth,
// the kernel tables and the data quality, with durations in ns, us, ms or s.
// One function writes both forms (Table.h's Document), so they cannot say
// different things.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_TEXTREPORT_H
#define PERFCC_DRIVER_PERFCTL_REPORT_TEXTREPORT_H

#include "report/Analysis.h"
#include "report/Table.h"
#include "trace/TraceModel.h"

#include <string>

namespace perfcc::perfctl {

/// The report of \p file as aligned text or as Markdown.
std::string renderReportDocument(const TraceModel &model,
                                 const TraceReport &report,
                                 const ReportOptions &options,
                                 const std::string &file, ReportStyle style);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_TEXTREPORT_H
