//===- FilterCommand.h - perfctl filter: options and run --------*- C++ -*-===//
//
// The `filter` subcommand: from a run's summary, a targets file that keeps
// the probes' cost within a budget (`--max-overhead 5%`), leaving out the
// functions whose probes would cost most of their time
// (filter/OverheadBudget.h). What a probe pair costs is measured here, in
// the summary's mode, by perfcc-probe-cost (or given with --probe-ns). It
// says on stderr what it left out and why. A summary or targets file that
// cannot be read is one line naming it and exit status 1; a bad option is
// exit status 2.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_FILTER_FILTERCOMMAND_H
#define PERFCC_DRIVER_PERFCTL_FILTER_FILTERCOMMAND_H

#include <CLI/CLI.hpp>

#include <string>

namespace perfcc::perfctl {

/// The filter subcommand's raw options.
struct FilterArgs {
  std::string summary;
  std::string maxOverhead; ///< "5%", "5"
  std::string targets;     ///< the targets file the run used; empty: none
  std::string out;         ///< empty: stdout
  double probeNs = -1;     ///< < 0: measure it
};

/// Adds `filter` and its options to \p app; the options land in \p args.
CLI::App *addFilterCommand(CLI::App &app, FilterArgs &args);

/// Runs a parsed filter. Returns the exit status: 0, 1 (an input could not
/// be read, the cost not measured, the output not written), 2 (a bad
/// --max-overhead).
int runFilterCommand(const FilterArgs &args);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_FILTER_FILTERCOMMAND_H
