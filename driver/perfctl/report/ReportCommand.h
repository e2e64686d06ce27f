//===- ReportCommand.h - perfctl report: options and run --------*- C++ -*-===//
//-*-===//
//
// The `report` subcommand: reads one trace written by perfcc and prints what
// it says (report/Analysis.h) as text, JSON (--json) or Markdown
// (--markdown). A trace that cannot be read is one line naming the file and
// the problem and exit status 1; a bad option is exit status 2.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_REPORTCOMMAND_H
#define PERFCC_DRIVER_PERFCTL_REPORT_REPORTCOMMAND_H

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace perfcc::perfctl {

/// The report subcommand's raw options, before they are checked.
struct ReportArgs {
  std::string trace;
  bool json = false, markdown = false;
  long long top = 15; ///< checked: 0 or more
  std::string shortGap = "30ns";
};

/// Adds `report` and its options to \p app; the options land in \p args.
CLI::App *addReportCommand(CLI::App &app, ReportArgs &args);

/// Runs a parsed report. Returns the exit status: 0, 1 (the trace could not
/// be read), 2 (a usage error).
int runReportCommand(const ReportArgs &args);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_REPORTCOMMAND_H
