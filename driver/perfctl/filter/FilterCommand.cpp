//===- FilterCommand.cpp - perfctl filter: its options and its run --------===//
#include "filter/FilterCommand.h"

#include "filter/FilteredTargets.h"
#include "filter/OverheadBudget.h"
#include "report/Units.h"
#include "run/Command.h"

#include "perfcc/OutputSchema.h"
#include "perfcc/Selection.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace perfcc::perfctl {

namespace {

namespace fs = std::filesystem;

int filterError(const std::string &problem, int status = 1) {
  fmt::print(stderr, "perfctl: filter: {}\n", problem);
  return status;
}

/// "5%", "5" or "0.5%": a share of the run, as a fraction; nullopt when not
/// a percentage above 0.
std::optional<double> parsePercent(std::string text) {
  if (!text.empty() && text.back() == '%')
    text.pop_back();
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (errno || *end || !std::isfinite(v) || v <= 0 || v > 10000)
    return std::nullopt;
  return v / 100;
}

/// perfcc-probe-cost, installed beside perfctl.
std::string probeCostTool() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("perfcc-probe-cost")
            : (self.parent_path() / "perfcc-probe-cost").string();
}

/// Runs perfcc-probe-cost in \p mode; the pair's cost in ns, or nullopt with
/// \p error.
std::optional<double> measureProbeNs(const std::string &mode,
                                     std::string &error) {
  std::string tool = probeCostTool();
  char folder[] = "/tmp/perfctl-probe-cost.XXXXXX";
  if (!::mkdtemp(folder)) {
    error = fmt::format("cannot make a folder for perfcc-probe-cost: {}",
                        std::strerror(errno));
    return std::nullopt;
  }
  std::string out = std::string(folder) + "/stdout";
  // Its own settings only: a sweep's targets or delays in the environment
  // would change what it measures; a 1 MiB trace cap keeps trace mode's
  // output small (the probes' path is the same past the cap).
  std::vector<std::string> env = makeEnvironment(
      {"PERFCC_TARGETS", "PERFCC_DELAY_TARGETS", "PERFCC_DELAY_NS",
       "PERFCC_SPEEDUP_PERCENT", "PERFCC_NVTX", "PERFCC_CUPTI"},
      {{"PERFCC_MODE", mode},
       {"PERFCC_OUT", std::string(folder) + "/out"},
       {"PERFCC_TRACE_MAX_MB", "1"}});
  CommandResult r =
      runCommand({tool}, env, out, std::string(folder) + "/stderr", 60);
  std::ifstream in(out);
  std::string word;
  double ns = -1;
  while (in >> word)
    if (word == "probe_pair_ns")
      in >> ns;
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (!r.ok() || ns < 0) {
    error = fmt::format("{}: {}; give the cost with --probe-ns", tool,
                        r.started
                            ? r.describe() + (r.ok() ? " without a figure" : "")
                            : "cannot run it: " + r.startError);
    return std::nullopt;
  }
  return ns;
}

std::string readText(const std::string &path, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("{}: cannot read it: {}", path, std::strerror(errno));
    return "";
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

int filter(const FilterArgs &args) {
  std::optional<double> budget = parsePercent(args.maxOverhead);
  if (!budget)
    return filterError(fmt::format("--max-overhead {}: expected a percentage "
                                   "above 0, such as 5%",
                                   args.maxOverhead),
                       2);
  std::string error;
  std::string text = readText(args.summary, error);
  if (!error.empty())
    return filterError(error);
  nlohmann::json summary = nlohmann::json::parse(text, nullptr, false);
  if (summary.is_discarded() || !summary.is_object())
    return filterError(args.summary + ": not JSON (a run cut short while "
                                      "writing it?)");
  std::string original;
  bool scoreP = false;
  if (!args.targets.empty()) {
    original = readText(args.targets, error);
    if (!error.empty())
      return filterError(error);
    std::optional<Selection> parsed =
        Selection::parse(original, args.targets, error);
    if (!parsed)
      return filterError(error);
    scoreP = parsed->isScoreP();
  }
  std::string mode = "trace";
  if (auto m = summary.find(schema::summary::Mode); m != summary.end()) {
    if (!m->is_string())
      return filterError(args.summary + ": not a perfcc summary: its \"" +
                         schema::summary::Mode + "\" is not text");
    mode = m->get<std::string>();
  }
  if (mode != "summary")
    mode = "trace"; // "mixed" (a merge): the dearer of the two is the bound
  double probeNs = args.probeNs;
  std::string costFrom = "given with --probe-ns";
  if (probeNs < 0) {
    std::optional<double> measured = measureProbeNs(mode, error);
    if (!measured)
      return filterError(error);
    probeNs = *measured;
    costFrom = "measured here by perfcc-probe-cost";
  }
  BudgetDecision d;
  try {
    d = decideBudget(summary, probeNs, *budget);
  } catch (const std::runtime_error &e) {
    return filterError(args.summary + ": " + e.what());
  }
  std::size_t left = d.excludedCount();
  std::string verdict =
      left == 0
          ? fmt::format("probes predicted to take {} of the run, within "
                        "{}: nothing left out",
                        percent(d.overheadBefore), percent(*budget))
          : fmt::format("probes predicted to take {} -> {} of the run "
                        "(budget {}), leaving out {} of {} functions: {} of "
                        "the {} calls",
                        percent(d.overheadBefore), percent(d.overheadAfter),
                        percent(*budget), left, d.functions.size(),
                        percent(d.callsBefore ? 1 - double(d.callsAfter) /
                                                        double(d.callsBefore)
                                              : 0),
                        d.callsBefore);
  std::string header = fmt::format(
      "# perfctl filter --max-overhead {} {}\n"
      "# A probe pair costs {:.1f} ns in {} mode ({}).\n# {}.\n",
      args.maxOverhead, args.summary, probeNs, mode, costFrom, verdict);
  std::string out = filteredTargets(d, header, original, scoreP);
  if (args.out.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    std::ofstream file(args.out, std::ios::binary | std::ios::trunc);
    if (!(file << out) || !file.flush())
      return filterError(fmt::format("{}: cannot write it: {}", args.out,
                                     std::strerror(errno)));
  }
  fmt::print(stderr, "perfctl: filter: a probe pair costs {:.1f} ns ({}); {}",
             probeNs, costFrom, verdict);
  fmt::print(stderr, "{}\n",
             args.out.empty() ? "" : fmt::format("; wrote {}", args.out));
  for (const BudgetFunction *f : d.leftOut())
    fmt::print(stderr, "  left out {}: {} calls, {} a call\n", f->name,
               f->calls, humanNs(f->meanInclusiveNs));
  return 0;
}

} // namespace

int runFilterCommand(const FilterArgs &args) {
  try {
    return filter(args);
  } catch (const std::exception &e) {
    return filterError(e.what());
  }
}

CLI::App *addFilterCommand(CLI::App &app, FilterArgs &args) {
  CLI::App *cmd = app.add_subcommand(
      "filter", "write a targets file that keeps the probes' cost within a "
                "budget, leaving out the functions whose probes would cost "
                "most of their time (as scorep-score does)");
  cmd->add_option("summary", args.summary,
                  "the summary of a run (<program>.<pid>.summary.json)")
      ->required()
      ->type_name("SUMMARY");
  cmd->add_option("--max-overhead", args.maxOverhead,
                  "the probes' budget: their share of the run, such as 5%")
      ->required()
      ->type_name("PERCENT");
  cmd->add_option("--targets", args.targets,
                  "the targets file the build or run used: the output keeps "
                  "it and adds the exclusions (without it: '*', for "
                  "PERFCC_TARGETS)")
      ->type_name("FILE");
  cmd->add_option("-o,--out", args.out, "write here instead of to stdout")
      ->type_name("FILE");
  cmd->add_option("--probe-ns", args.probeNs,
                  "what an enter/exit probe pair costs, in ns (default: "
                  "measured here by perfcc-probe-cost)")
      ->check(CLI::NonNegativeNumber)
      ->type_name("NS");
  cmd->footer("\nExample:\n  perfctl filter perfcc-out/app.1234.summary.json "
              "--max-overhead 5% --targets app.targets -o app.filtered\n"
              "  PERFCC_TARGETS=app.filtered ./app      # or rebuild with "
              "--perf-targets=app.filtered\n\nSee docs/perfctl.md.");
  return cmd;
}

} // namespace perfcc::perfctl
