//===- TraceCommand.h - perfctl trace: options and run ----------*- C++ -*-===//
//
// `perfctl trace recover SPILL [--out DIR]`: the trace and summary of a run
// that ended before writing them (kill -9, an OOM kill, a crash the runtime
// could not catch, a power cut), from the spill it left in its output folder
// (trace/SpillRecovery.h). A spill that cannot be read is one line naming
// the file and the problem and exit status 1; a bad option is exit status 2.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_TRACE_TRACECOMMAND_H
#define PERFCC_DRIVER_PERFCTL_TRACE_TRACECOMMAND_H

#include <CLI/CLI.hpp>

#include <string>

namespace perfcc::perfctl {

struct TraceArgs {
  std::string spill;
  std::string out; ///< empty: the spill's folder
};

/// Adds `trace` and its `recover` subcommand to \p app; the options land
/// in \p args.
CLI::App *addTraceCommand(CLI::App &app, TraceArgs &args);

/// Runs a parsed `trace recover`. Returns the exit status: 0, 1 (the spill
/// could not be read or the files written), 2 (a usage error).
int runTraceCommand(const TraceArgs &args);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_TRACE_TRACECOMMAND_H
