//===- MergeCommand.h - perfctl merge: options and run ----------*- C++ -*-===//
//
// The `merge` subcommand: several processes' traces (files, or folders of
// `*.trace.json`) into one trace on their shared clock, one process track
// each (merge/TraceMerge.h), and the summaries beside them into one summary
// (merge/SummaryMerge.h). Nothing is written unless everything merged: the
// outputs appear whole (written aside, then renamed) or not at all. A trace
// or summary that cannot be read, or traces that cannot share a timeline,
// are one line naming the file and exit status 1; a bad option, or fewer
// than two traces, is exit status 2.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_MERGE_MERGECOMMAND_H
#define PERFCC_DRIVER_PERFCTL_MERGE_MERGECOMMAND_H

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace perfcc::perfctl {

/// The merge subcommand's raw options.
struct MergeArgs {
  std::vector<std::string> inputs; ///< traces and folders of traces
  std::string out;                 ///< the merged trace
};

/// Adds `merge` and its options to \p app; the options land in \p args.
CLI::App *addMergeCommand(CLI::App &app, MergeArgs &args);

/// Runs a parsed merge. Returns the exit status: 0, 1 (an input could not be
/// read or merged, an output not written), 2 (fewer than two traces).
int runMergeCommand(const MergeArgs &args);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_MERGE_MERGECOMMAND_H
