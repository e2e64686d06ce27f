//===- perfctl.cpp - runs speed-bump experiments and reads traces ---------===//
//
// perfctl sweep runs a program built with perfcc at several speed-bump
// delays, repeated, in random order, with controls, and says which
// functions limit its throughput (docs/perfctl.md):
//
//   perfctl sweep --targets F --delays 0,1us,10us,100us --repeats 5 -- CMD
//
// With --speedup 10,25,50 instead of --delays it runs Coz's experiment:
// virtual speedups of the targets, and the throughput change each predicts.
//
// perfctl report TRACE reads one trace: the hottest functions, GPU busy and
// idle time, and GPU idle time charged to the host functions that caused it.
//
// perfctl export --format folded|flamegraph|callgrind|pprof TRACE writes a
// trace's calls for flame-graph tools, browsers, KCachegrind and pprof.
//
// perfctl filter SUMMARY --max-overhead 5% writes a targets file that keeps
// the probes' cost within the budget.
//
// perfctl merge -o OUT TRACE... merges several processes' traces (and their
// summaries) into one, on their shared clock.
//
// perfctl trace recover SPILL turns the spill of a run that died before
// writing its trace into that trace and its summary.
//
// Also: perfctl help [sweep|report|export|merge|filter|trace], perfctl
// --version. Usage errors exit 2 before anything runs; a sweep that fails exits
// 1 (130 when interrupted) and keeps what it measured in OUT/sweep.json; a
// trace that cannot be read exits 1.
//
//===----------------------------------------------------------------------===//
#include "export/ExportCommand.h"
#include "filter/FilterCommand.h"
#include "merge/MergeCommand.h"
#include "report/ReportCommand.h"
#include "sweep/SweepCommand.h"
#include "trace/TraceCommand.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <string>

#ifndef PERFCC_VERSION_STRING
#define PERFCC_VERSION_STRING "unknown"
#endif

using namespace perfcc::perfctl;

int main(int argc, char **argv) {
  CLI::App app("perfctl: runs speed-bump experiments on programs built with "
               "perfcc and says which code limits their throughput, and "
               "reads their traces",
               "perfctl");
  bool version = false;
  app.add_flag("--version", version, "print the version");
  // Each command declares its own options (sweep/SweepCommand.h); main()
  // parses and dispatches.
  SweepArgs args;
  CLI::App *sweepCmd = addSweepCommand(app, args);
  ReportArgs reportArgs;
  CLI::App *reportCmd = addReportCommand(app, reportArgs);
  ExportArgs exportArgs;
  CLI::App *exportCmd = addExportCommand(app, exportArgs);
  MergeArgs mergeArgs;
  CLI::App *mergeCmd = addMergeCommand(app, mergeArgs);
  FilterArgs filterArgs;
  CLI::App *filterCmd = addFilterCommand(app, filterArgs);
  TraceArgs traceArgs;
  CLI::App *traceCmd = addTraceCommand(app, traceArgs);
  // Registered for the command list; answered before parsing, since CLI11
  // would read "help sweep" as the sweep subcommand.
  app.add_subcommand("help", "help on perfctl, or 'perfctl help "
                             "sweep|report|export|merge|filter|trace'");
  app.footer("\nRun 'perfctl help sweep', 'perfctl help report', 'perfctl "
             "help export', 'perfctl help merge', 'perfctl help filter' or "
             "'perfctl help trace' for a "
             "command's options; "
             "docs/perfctl.md is the guide.");
  if (argc >= 2 && std::string(argv[1]) == "help") {
    std::string topic = argc >= 3 ? argv[2] : "";
    if (topic.empty())
      fmt::print("{}", app.help());
    else if (topic == "sweep")
      fmt::print("{}", sweepCmd->help("perfctl"));
    else if (topic == "report")
      fmt::print("{}", reportCmd->help("perfctl"));
    else if (topic == "export")
      fmt::print("{}", exportCmd->help("perfctl"));
    else if (topic == "merge")
      fmt::print("{}", mergeCmd->help("perfctl"));
    else if (topic == "filter")
      fmt::print("{}", filterCmd->help("perfctl"));
    else if (topic == "trace")
      fmt::print("{}{}", traceCmd->help("perfctl"),
                 traceCmd->get_subcommand("recover")->help("perfctl trace"));
    else
      return usageError(
          "help: no command '" + topic +
          "' (commands: sweep, report, export, merge, filter, trace)");
    return 0;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::string command = sweepCmd->parsed()    ? "sweep"
                          : reportCmd->parsed() ? "report"
                          : exportCmd->parsed() ? "export"
                          : mergeCmd->parsed()  ? "merge"
                          : filterCmd->parsed() ? "filter"
                          : traceCmd->parsed()  ? "trace"
                                                : "";
    usageError((command.empty() ? "" : command + ": ") + e.what());
    fmt::print(stderr, "perfctl: run 'perfctl help{}' for the options\n",
               command.empty() ? "" : " " + command);
    return 2;
  }
  if (version) {
    fmt::print("perfctl {}\n", PERFCC_VERSION_STRING);
    return 0;
  }
  if (sweepCmd->parsed())
    return runSweepCommand(args);
  if (reportCmd->parsed())
    return runReportCommand(reportArgs);
  if (exportCmd->parsed())
    return runExportCommand(exportArgs);
  if (mergeCmd->parsed())
    return runMergeCommand(mergeArgs);
  if (filterCmd->parsed())
    return runFilterCommand(filterArgs);
  if (traceCmd->parsed())
    return runTraceCommand(traceArgs);
  fmt::print(stderr, "{}", app.help());
  return 2;
}
