//===- ExportCommand.h - perfctl export: options and run --------*- C++ -*-===//
//
// The `export` subcommand: reads one trace written by perfcc (or recovered
// from a spill by `perfctl trace recover`) and writes it in a format other
// tools read: folded stacks (flame-graph tools), an interactive SVG flame
// graph, a callgrind profile (KCachegrind, callgrind_annotate) or a pprof
// profile (go tool pprof). A trace
// that cannot be read, or an output that cannot be written, is one line
// naming the file and the problem and exit status 1; a bad option is exit
// status 2.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_EXPORT_EXPORTCOMMAND_H
#define PERFCC_DRIVER_PERFCTL_EXPORT_EXPORTCOMMAND_H

#include <CLI/CLI.hpp>

#include <string>

namespace perfcc::perfctl {

/// The export subcommand's raw options.
struct ExportArgs {
  std::string trace;
  std::string format;        ///< folded, flamegraph, callgrind, pprof
  std::string out;           ///< empty: stdout
  std::string time = "wall"; ///< wall, or cpu (PERFCC_CPU_TIME traces)
};

/// Adds `export` and its options to \p app; the options land in \p args.
CLI::App *addExportCommand(CLI::App &app, ExportArgs &args);

/// Runs a parsed export. Returns the exit status: 0, 1 (the trace could not
/// be read or the output written).
int runExportCommand(const ExportArgs &args);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_EXPORT_EXPORTCOMMAND_H
