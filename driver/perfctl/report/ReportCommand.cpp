//===- ReportCommand.cpp - perfctl report: its options and its run --------===//
#include "report/ReportCommand.h"

#include "report/Analysis.h"
#include "report/JsonReport.h"
#include "report/TextReport.h"
#include "sweep/Plan.h"
#include "sweep/SweepCommand.h"
#include "trace/TraceReader.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <limits>
#include <new>

namespace perfcc::perfctl {

namespace {

/// "perfctl: report: FILE: PROBLEM" on stderr; returns 1.
int traceError(const std::string &file, const std::string &problem) {
  fmt::print(stderr, "perfctl: report: {}: {}\n", file, problem);
  return 1;
}

int report(const ReportArgs &args) {
  std::string error;
  std::optional<std::uint64_t> shortGap = parseDelayNs(args.shortGap, error);
  if (!shortGap ||
      *shortGap > std::uint64_t(std::numeric_limits<TimeNs>::max()))
    return usageError("report: --short-gap: " + error);
  ReportOptions options;
  options.top = std::size_t(args.top);
  options.shortGapNs = TimeNs(*shortGap);
  std::optional<TraceModel> model = readTraceFile(args.trace, error);
  if (!model)
    return traceError(args.trace, error);
  TraceReport analysis = analyzeTrace(*model, options);
  std::string out;
  if (args.json)
    out = reportJson(*model, analysis, options, args.trace).dump(2) + "\n";
  else
    out = renderReportDocument(*model, analysis, options, args.trace,
                               args.markdown ? ReportStyle::Markdown
                                             : ReportStyle::Text);
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (std::fflush(stdout) != 0)
    return traceError(args.trace, "cannot write the report to stdout");
  return 0;
}

} // namespace

int runReportCommand(const ReportArgs &args) {
  // Nothing escapes as an exception: a trace too large for memory, or a
  // library surprise, is still one line and exit status 1.
  try {
    return report(args);
  } catch (const std::bad_alloc &) {
    return traceError(args.trace, "out of memory reading it");
  } catch (const std::exception &e) {
    return traceError(args.trace, e.what());
  }
}

CLI::App *addReportCommand(CLI::App &app, ReportArgs &args) {
  CLI::App *cmd = app.add_subcommand(
      "report", "read a perfcc trace: the hottest functions, GPU busy and "
                "idle time per device and stream, GPU idle time charged to "
                "the host functions that caused it, kernels, data quality");
  cmd->add_option("trace", args.trace, "the trace (<program>.<pid>.trace.json)")
      ->required()
      ->type_name("TRACE");
  CLI::Option *json =
      cmd->add_flag("--json", args.json, "print a JSON object instead of text");
  CLI::Option *markdown = cmd->add_flag(
      "--markdown", args.markdown, "print Markdown tables instead of text");
  json->excludes(markdown);
  cmd->add_option("--top", args.top,
                  "rows of each ranked table (0: all of them)")
      ->capture_default_str()
      ->check(CLI::Range(0LL, 1000000LL).description(""))
      ->type_name("N");
  cmd->add_option("--short-gap", args.shortGap,
                  "a stream gap shorter than this that is not host wait is a "
                  "short gap: 30, 30ns, 1us (Holistic Trace Analysis's "
                  "default)")
      ->capture_default_str()
      ->type_name("NS");
  cmd->footer("\nExample:\n  perfctl report perfcc-out/app.1234.trace.json\n"
              "  perfctl report --json --top 0 app.1234.trace.json\n"
              "\nSee docs/perfctl.md.");
  return cmd;
}

} // namespace perfcc::perfctl
