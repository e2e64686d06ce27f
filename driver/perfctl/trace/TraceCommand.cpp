//===- TraceCommand.cpp - perfctl trace recover: options and run ----------===//
#include "trace/TraceCommand.h"

#include "trace/SpillReader.h"
#include "trace/SpillRecovery.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <new>

namespace perfcc::perfctl {

namespace {

/// "perfctl: trace recover: FILE: PROBLEM" on stderr; returns 1.
int spillError(const std::string &file, const std::string &problem) {
  fmt::print(stderr, "perfctl: trace recover: {}: {}\n", file, problem);
  return 1;
}

std::string folderOf(const std::string &path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

int recover(const TraceArgs &args) {
  SpillReader reader;
  std::string error;
  if (!reader.open(args.spill, error))
    return spillError(args.spill, error);
  RecoveredFiles files;
  std::string out = args.out.empty() ? folderOf(args.spill) : args.out;
  if (!recoverSpill(reader, args.spill, out, files, error))
    return spillError(args.spill, error);
  const SpillIndex &index = reader.index();
  fmt::print("perfctl: recovered {} calls of {} (pid {}) from {} chunks: "
             "wrote {} and {}\n",
             files.calls, index.program, index.pid, index.chunks.size(),
             files.trace, files.summary);
  if (!index.cut.empty())
    fmt::print("perfctl: the spill was cut: {}\n", index.cut);
  if (index.badSlots)
    fmt::print("perfctl: {} ring slot{} held no intact chunk: skipped\n",
               index.badSlots, index.badSlots == 1 ? "" : "s");
  if (files.unnamed)
    fmt::print("perfctl: {} record{} named a function or progress point the "
               "spill never described: skipped\n",
               files.unnamed, files.unnamed == 1 ? "" : "s");
  fmt::print("perfctl: not in a spill: the calls still in the program's "
             "memory when it ended, and its measurement window, speed bumps "
             "and GPU activity\n");
  return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace

int runTraceCommand(const TraceArgs &args) {
  // Nothing escapes as an exception: one line and exit status 1.
  try {
    return recover(args);
  } catch (const std::bad_alloc &) {
    return spillError(args.spill, "out of memory reading it");
  } catch (const std::exception &e) {
    return spillError(args.spill, e.what());
  }
}

CLI::App *addTraceCommand(CLI::App &app, TraceArgs &args) {
  CLI::App *cmd = app.add_subcommand(
      "trace", "work on perfcc's trace files: 'perfctl trace recover SPILL' "
               "turns what a run that died left behind into its trace");
  cmd->require_subcommand(1);
  CLI::App *recover = cmd->add_subcommand(
      "recover", "write the trace and summary of a run that ended before "
                 "writing them, from its spill (.<program>.<pid>.spans in "
                 "its output folder), up to the last chunk on disk");
  recover->add_option("spill", args.spill, "the spill file")
      ->required()
      ->type_name("SPILL");
  recover
      ->add_option("--out", args.out,
                   "the folder for the trace and summary (default: the "
                   "spill's)")
      ->type_name("DIR");
  recover->footer("\nExample:\n  perfctl trace recover "
                  "perfcc-out/.app.1234.spans\n\nSee docs/perfctl.md.");
  return cmd;
}

} // namespace perfcc::perfctl
