//===- SweepCommand.h - perfctl sweep: its options and its run --*- C++ -*-===//
//
// The `sweep` subcommand: it declares its options on perfctl's command line,
// checks them (a usage error is one line and exit status 2 before anything
// runs), runs the plan, and writes sweep.json, report.md and plot.svg. main()
// only dispatches; every perfctl command is such a pair of files in its own
// folder.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_SWEEPCOMMAND_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_SWEEPCOMMAND_H

#include "sweep/Runner.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace perfcc::perfctl {

/// The sweep subcommand's raw options, before they are checked.
struct SweepArgs {
  std::string targets, delays = "auto", extrapolate, regex;
  std::string budget; ///< --budget: adaptive repeats within this time
  std::string pin;    ///< --pin: a CPU list
  bool repeatsGiven = false, budgetGiven = false;
  std::string speedup; ///< --speedup: percents; empty: speed bumps
  /// --cross-check: auto (a slack verdict beside a contended mutex is
  /// measured again by virtual speedups, sweep/CrossCheck.h) or off.
  std::string crossCheck = "auto";
  std::vector<std::string> groups;
  bool wallTime = false;
  double work = 0;
  SweepOptions options;
};

/// Adds `sweep` and its options to \p app; the options land in \p args.
CLI::App *addSweepCommand(CLI::App &app, SweepArgs &args);

/// Runs a parsed sweep. Returns the exit status: 0, 1 (the sweep failed,
/// what it measured kept in sweep.json), 2 (a usage error), 130
/// (interrupted).
int runSweepCommand(SweepArgs &args);

/// "perfctl: error: MESSAGE" on stderr; returns 2, the usage-error status.
int usageError(const std::string &message);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_SWEEPCOMMAND_H
