//===- ExportCommand.cpp - perfctl export: its options and its run --------===//
#include "export/ExportCommand.h"

#include "export/CallTree.h"
#include "export/Callgrind.h"
#include "export/FlameGraph.h"
#include "export/FoldedStacks.h"
#include "export/Pprof.h"
#include "trace/TraceReader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <unistd.h>

namespace perfcc::perfctl {

namespace {

/// "perfctl: export: FILE: PROBLEM" on stderr; returns 1.
int exportError(const std::string &file, const std::string &problem) {
  fmt::print(stderr, "perfctl: export: {}: {}\n", file, problem);
  return 1;
}

/// Writes \p text to \p path, or to stdout when it is empty.
int writeOut(const std::string &path, const std::string &text) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0)
      return exportError("stdout", std::strerror(errno));
    return 0;
  }
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return exportError(
        path, fmt::format("cannot create it: {}", std::strerror(errno)));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int saved = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    return exportError(path, fmt::format("cannot write it: {}",
                                         std::strerror(saved ? saved : errno)));
  return 0;
}

int exportTrace(const ExportArgs &args) {
  // Binary on a terminal is noise, and can upset it: ask for a file.
  if (args.format == "pprof" && args.out.empty() && isatty(STDOUT_FILENO)) {
    fmt::print(stderr, "perfctl: export: --format pprof writes a binary "
                       "profile: give -o FILE or redirect stdout\n");
    return 2;
  }
  std::string error;
  std::optional<TraceModel> model = readTraceFile(args.trace, error);
  if (!model)
    return exportError(args.trace, error);
  CallTime time = args.time == "cpu" ? CallTime::Cpu : CallTime::Wall;
  if (time == CallTime::Cpu && !model->hasCpuTime())
    return exportError(args.trace,
                       "has no CPU times: record it with PERFCC_CPU_TIME=1 "
                       "for --time cpu");
  CallTree tree = buildCallTree(*model, time);
  if (tree.calls == 0)
    return exportError(args.trace, "holds no calls of instrumented functions "
                                   "(cpu_op events): nothing to export");
  std::string program =
      model->metadata.program.empty() ? args.trace : model->metadata.program;
  std::string text;
  if (args.format == "folded")
    text = foldedStacks(*model, tree);
  else if (args.format == "flamegraph")
    text =
        flameGraphSvg(*model, tree,
                      model->metadata.pid ? fmt::format("{} (pid {})", program,
                                                        *model->metadata.pid)
                                          : program);
  else if (args.format == "callgrind")
    text = callgrindProfile(*model, tree,
                            "perfctl " PERFCC_VERSION_STRING " (perfcc trace)");
  else
    text = pprofProfile(*model, tree,
                        "perfctl " PERFCC_VERSION_STRING " from " + args.trace);
  if (tree.improperlyNested)
    fmt::print(stderr,
               "perfctl: export: warning: {}: {} calls did not nest in their "
               "thread (closed where the next began)\n",
               args.trace, tree.improperlyNested);
  return writeOut(args.out, text);
}

} // namespace

int runExportCommand(const ExportArgs &args) {
  try {
    return exportTrace(args);
  } catch (const std::bad_alloc &) {
    return exportError(args.trace, "out of memory reading it");
  } catch (const std::exception &e) {
    return exportError(args.trace, e.what());
  }
}

CLI::App *addExportCommand(CLI::App &app, ExportArgs &args) {
  CLI::App *cmd = app.add_subcommand(
      "export", "write a perfcc trace's calls for other tools: folded stacks "
                "(flame-graph tools), an interactive SVG flame graph, a "
                "callgrind profile (KCachegrind, callgrind_annotate), a pprof "
                "profile (go tool pprof)");
  cmd->add_option("trace", args.trace, "the trace (<program>.<pid>.trace.json)")
      ->required()
      ->type_name("TRACE");
  cmd->add_option("--format", args.format,
                  "folded: 'frame;frame value' lines (self time, ns); "
                  "flamegraph: an SVG a browser opens; callgrind: "
                  "callgrind.out for KCachegrind; pprof: profile.proto, "
                  "gzipped, for go tool pprof")
      ->required()
      ->check(CLI::IsMember({"folded", "flamegraph", "callgrind", "pprof"}))
      ->type_name("FORMAT");
  cmd->add_option("-o,--out", args.out, "write here instead of to stdout")
      ->type_name("FILE");
  cmd->add_option("--time", args.time,
                  "wall: each call's wall time; cpu: its thread's CPU time "
                  "(a trace recorded with PERFCC_CPU_TIME=1): what computes "
                  "rather than waits")
      ->capture_default_str()
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->type_name("TIME");
  cmd->footer(
      "\nExample:\n  perfctl export --format flamegraph -o app.svg "
      "perfcc-out/app.1234.trace.json\n  perfctl export --format callgrind -o "
      "callgrind.out.1234 app.1234.trace.json && kcachegrind "
      "callgrind.out.1234\n  perfctl export --format pprof -o app.pb.gz "
      "app.1234.trace.json && go tool pprof -top app.pb.gz\n\nSee "
      "docs/perfctl.md.");
  return cmd;
}

} // namespace perfcc::perfctl
