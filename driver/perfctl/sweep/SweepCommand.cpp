//===- SweepCommand.cpp - perfctl sweep: its options and its run ---------===//
#include "sweep/SweepCommand.h"

#include "run/CpuPinning.h"
#include "speedup/Analysis.h"
#include "speedup/Plot.h"
#include "speedup/Report.h"
#include "sweep/Analysis.h"
#include "sweep/CrossCheck.h"
#include "sweep/Plan.h"
#include "sweep/Plot.h"
#include "sweep/Progress.h"
#include "sweep/Report.h"
#include "sweep/Rounds.h"
#include "sweep/Runner.h"
#include "sweep/Sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace perfcc::perfctl;

namespace {

void addSweepOptions(CLI::App &sweep, SweepArgs &args) {
  SweepOptions &o = args.options;
  sweep.add_option("--targets", args.targets,
                   "delay-targets file: the functions to slow down (a group "
                   "named after the file)");
  sweep
      .add_option("--group", args.groups,
                  "NAME=FILE: a group of its own, with its own curve and "
                  "verdict; repeatable, ranked against each other")
      ->take_all();
  sweep
      .add_option("--delays", args.delays,
                  "delays per call, comma-separated: 0, 500 (ns), 500ns, "
                  "1us, 2ms; 0 is always added. auto: a pilot measures each "
                  "group and chooses its own ladder")
      ->capture_default_str();
  sweep
      .add_option("--speedup", args.speedup,
                  "virtual speedups instead of delays (Coz's mode), in "
                  "percent, comma-separated: 10,25,50; a 1% baseline is "
                  "always added")
      ->excludes("--delays");
  sweep
      .add_option_function<unsigned>(
          "--repeats",
          [&args](unsigned n) {
            args.options.repeats = n;
            args.repeatsGiven = true;
          },
          "runs per delay and per group: exactly N (without --budget), or "
          "the first N before adaptive rounds (default 3, adaptive; 5 with "
          "--speedup)")
      ->check(CLI::Range(1u, 100000u));
  sweep.add_option_function<std::string>(
      "--budget",
      [&args](const std::string &text) {
        args.budget = text;
        args.budgetGiven = true;
      },
      "adaptive repeats: add rounds to the groups whose answer "
      "is unsettled until all are settled or this much time is "
      "spent (90s, 5m, 1h; default 10m when --repeats is not "
      "given)");
  sweep
      .add_option("--ci-width", o.targetWidth,
                  "adaptive repeats: a group is settled when its "
                  "pass-through interval is at most this wide (--speedup: "
                  "when its largest speedup's gain has an interval at most "
                  "this share of the gain wide, or 8 points)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 10.0));
  sweep.add_option("--seed", o.seed, "seed of the run order and bootstraps")
      ->capture_default_str();
  sweep
      .add_option("--frequency", o.frequency,
                  "delay every Nth call (PERFCC_FREQUENCY)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sweep
      .add_option("--warmup-ms", o.warmupMs,
                  "warm-up excluded from the window (PERFCC_START_MS)")
      ->capture_default_str();
  sweep
      .add_option("--window-ms", o.windowMs,
                  "window length, 0: to the end (PERFCC_DURATION_MS)")
      ->capture_default_str();
  CLI::Option *progress = sweep.add_option(
      "--progress", o.throughput.progress,
      "throughput from this progress point (default: the first one)");
  CLI::Option *wall = sweep.add_flag("--wall-time", args.wallTime,
                                     "throughput = units of work / wall time");
  CLI::Option *work =
      sweep
          .add_option("--work", args.work,
                      "units of work per run, for --wall-time (implies it)")
          ->check(CLI::PositiveNumber);
  CLI::Option *regex = sweep.add_option(
      "--regex", args.regex,
      "throughput = the number its one capture group matches in the "
      "program's stdout (last match), e.g. 'tok/s: ([0-9.]+)'");
  progress->excludes(wall)->excludes(work)->excludes(regex);
  regex->excludes(wall)->excludes(work);
  sweep.add_option("--out", o.outDir, "output folder")->capture_default_str();
  sweep.add_option("--bootstrap", o.analysis.resamples, "bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::Range(100u, 1000000u));
  sweep
      .add_option("--confidence", o.analysis.confidence,
                  "confidence level of every interval")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.999));
  sweep.add_option("--extrapolate", args.extrapolate,
                   "per-call speedups to estimate, like --delays, or in "
                   "percent of a call's own work: 10%,30%,50% (default: "
                   "the nonzero delays)");
  sweep
      .add_option("--timeout", o.timeoutS,
                  "seconds a run may take, 0: no limit")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sweep.add_option("--pin", args.pin,
                   "run the program on these CPUs only (2-3, 0,2): keeps it "
                   "off cores that other load uses");
  sweep
      .add_option("--cross-check", args.crossCheck,
                  "auto: a slack verdict beside a contended mutex (which "
                  "slowing down cannot judge) is measured again by virtual "
                  "speedups, into OUT/cross-check, within the budget; off")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "off"}));
  sweep.add_flag("--quiet", o.quiet, "no progress on stderr");
  for (auto [name, type] : {std::pair{"--targets", "FILE"},
                            {"--group", "NAME=FILE"},
                            {"--delays", "LIST"},
                            {"--speedup", "LIST"},
                            {"--repeats", "N"},
                            {"--budget", "TIME"},
                            {"--ci-width", "W"},
                            {"--seed", "N"},
                            {"--frequency", "N"},
                            {"--warmup-ms", "MS"},
                            {"--window-ms", "MS"},
                            {"--progress", "NAME"},
                            {"--work", "N"},
                            {"--regex", "RE"},
                            {"--out", "DIR"},
                            {"--bootstrap", "N"},
                            {"--confidence", "C"},
                            {"--extrapolate", "LIST"},
                            {"--timeout", "SECONDS"},
                            {"--pin", "CPUS"},
                            {"--cross-check", "auto|off"}})
    sweep.get_option(name)->type_name(type);
  sweep.add_option("command", o.command, "the command to run, after --")
      ->required()
      ->type_name("CMD ARGS");
  sweep.footer(
      "\nExample:\n  perfctl sweep --group consumer=consumer.targets --group "
      "producer=producer.targets -- ./pipeline\n  perfctl sweep --group "
      "consumer=consumer.targets --delays 0,1us,10us,100us --repeats 5 -- "
      "./pipeline\n  perfctl sweep --group "
      "consumer=consumer.targets --speedup 10,25,50 -- ./pipeline"
      "\n\nWrites OUT/sweep.json, OUT/report.md "
      "and OUT/plot.svg and prints the answer.\nSee docs/perfctl.md.");
}

/// Checks the options of a speedup sweep (--speedup) of \p groups.
int checkSpeedupArgs(SweepArgs &args, const std::vector<Group> &groups,
                     SweepPlan &plan) {
  SweepOptions &o = args.options;
  std::string error;
  std::optional<std::vector<unsigned>> percents =
      parsePercentList(args.speedup, error);
  if (!percents)
    return usageError("--speedup: " + error);
  if (percents->empty())
    return usageError(fmt::format("--speedup: needs a speedup above the {}% "
                                  "baseline, e.g. 10,25,50",
                                  BaselinePercent));
  if (args.wallTime || args.work > 0 || !args.regex.empty())
    return usageError(fmt::format(
        "--speedup needs the throughput from a progress point: the runtime "
        "corrects its rate for the delay it inserts into the other threads, "
        "and {} cannot be corrected (use --progress NAME, or speed bumps with "
        "--delays)",
        args.regex.empty() ? "wall time (--wall-time, --work)"
                           : "a rate the program prints (--regex)"));
  if (o.frequency != 1)
    return usageError("--speedup excludes --frequency: a virtual speedup "
                      "times every call of its targets");
  if (!args.extrapolate.empty())
    return usageError("--speedup excludes --extrapolate: each speedup asked "
                      "for is measured, not extrapolated");
  // Adaptive as speed bumps are (--repeats alone: fixed); five repeats to
  // begin with, since a gain is a difference of two medians.
  if (!args.repeatsGiven)
    o.repeats = 5;
  o.groups = groups;
  o.speedups = *percents;
  o.analysis.seed = o.seed;
  plan = makeSpeedupPlan(groups, *percents, o.repeats, o.seed);
  return 0;
}

/// Checks \p args and fills their options; a usage error returns non-zero.
int checkSweepArgs(SweepArgs &args, SweepPlan &plan) {
  SweepOptions &o = args.options;
  std::string error;
  std::vector<Group> groups;
  if (!args.targets.empty())
    groups.push_back(groupForTargets(args.targets));
  for (const std::string &spec : args.groups) {
    std::optional<Group> group = parseGroup(spec, error);
    if (!group)
      return usageError("--group " + error);
    groups.push_back(*group);
  }
  if (groups.empty())
    return usageError("sweep needs --targets FILE or --group NAME=FILE: the "
                      "functions to slow down");
  if (!validateGroups(groups, error))
    return usageError(error);
  if (!args.pin.empty()) {
    std::optional<std::vector<int>> cpus = parseCpuList(args.pin, error);
    if (!cpus)
      return usageError("--pin: " + error);
    o.pin = *cpus;
  }
  o.adaptive = args.budgetGiven || !args.repeatsGiven;
  if (args.budgetGiven) {
    std::optional<double> budget = parseBudget(args.budget, error);
    if (!budget)
      return usageError("--budget: " + error);
    o.budgetS = *budget;
  }
  if (!args.speedup.empty()) {
    if (args.crossCheck != "auto")
      return usageError("--cross-check is a speed-bump sweep's: --speedup "
                        "already measures by virtual speedups");
    return checkSpeedupArgs(args, groups, plan);
  }
  o.autoDelays = args.delays == "auto";
  std::optional<std::vector<std::uint64_t>> delays =
      o.autoDelays ? std::vector<std::uint64_t>{0}
                   : parseDelayList(args.delays, error);
  if (!delays)
    return usageError("--delays: " + error + " (or auto)");
  if (!o.autoDelays &&
      std::count_if(delays->begin(), delays->end(),
                    [](std::uint64_t d) { return d > 0; }) == 0)
    return usageError("--delays: needs at least one nonzero delay");
  if (!args.extrapolate.empty()) {
    // Delays per call (2us) and percents of a call's own work (10%) mix.
    std::string delaysPart, percentPart;
    for (std::size_t at = 0; at <= args.extrapolate.size();) {
      std::size_t comma =
          std::min(args.extrapolate.find(',', at), args.extrapolate.size());
      std::string item = args.extrapolate.substr(at, comma - at);
      std::string &part =
          !item.empty() && item.back() == '%' ? percentPart : delaysPart;
      part += (part.empty() ? "" : ",") + item;
      at = comma + 1;
    }
    if (!delaysPart.empty()) {
      std::optional<std::vector<std::uint64_t>> speedups =
          parseDelayList(delaysPart, error);
      if (!speedups)
        return usageError("--extrapolate: " + error);
      for (std::uint64_t s : *speedups)
        if (s)
          o.analysis.speedupsNs.push_back(s);
    }
    if (!percentPart.empty()) {
      std::optional<std::vector<unsigned>> percents =
          parsePercentList(percentPart, error, false);
      if (!percents)
        return usageError("--extrapolate: " + error);
      o.analysis.speedupPercents = *percents;
    }
  }
  if (!args.regex.empty()) {
    o.throughput.source = ThroughputSource::Regex;
    o.throughput.regex = args.regex;
    if (!OutputPattern::compile(args.regex, error))
      return usageError(error);
  } else if (args.wallTime || args.work > 0) {
    o.throughput.source = ThroughputSource::WallTime;
    o.throughput.work = args.work > 0 ? args.work : 1;
  }
  o.groups = groups;
  o.delays = *delays;
  o.analysis.seed = o.seed;
  o.analysis.frequency = o.frequency;
  if (o.autoDelays) {
    // The runs come after the pilot (runPlannedRuns).
    plan.groups = groups;
    plan.delays = {0};
    plan.repeats = o.repeats;
    plan.seed = o.seed;
  } else {
    plan = makePlan(groups, *delays, o.repeats, o.seed);
  }
  return 0;
}

/// Analyses a complete speedup sweep, writes its files, prints the answer.
int reportSpeedups(SweepState &state, const std::vector<std::string> &names,
                   const std::vector<std::string> &files) {
  const SweepOptions &o = state.options;
  SpeedupAnalysis analysis = analyzeSpeedups(
      names, files, state.plan.speedups, speedupPointsOf(state), o.analysis);
  adviseUnsettled(state, analysis);
  std::string error, message;
  if (!writeSweepJson(state, nullptr, error, &analysis))
    return fmt::print(stderr, "perfctl: error: {}\n", error), 1;
  bool plotted = writeSpeedupPlot(state, analysis, message);
  if (!plotted)
    fmt::print(stderr, "perfctl: warning: {}\n", message);
  if (!writeSpeedupMarkdown(state, analysis, plotted, error))
    return fmt::print(stderr, "perfctl: error: {}\n", error), 1;
  if (!o.quiet)
    fmt::print(stderr, "perfctl: wrote {0}/sweep.json, {0}/report.md{1}\n",
               o.outDir, plotted ? " and " + o.outDir + "/plot.svg" : "");
  fmt::print("{}\n", analysis.answer);
  return 0;
}

} // namespace

int perfcc::perfctl::runSweepCommand(SweepArgs &args) {
  auto start = std::chrono::steady_clock::now();
  SweepState state;
  if (int rc = checkSweepArgs(args, state.plan))
    return rc;
  state.options = args.options;
  const SweepOptions &o = state.options;
  std::string out = o.outDir;
  if (!o.quiet && state.plan.speedup())
    fmt::print(stderr,
               "perfctl: {} runs ({} group(s) x {} speedups x {} repeats, "
               "plus {} unarmed){}, seed {}, into {}\n",
               state.plan.runs.size(), state.plan.groups.size(),
               state.plan.speedups.size(), o.repeats, o.repeats,
               o.adaptive
                   ? fmt::format(", then more where a gain's interval is "
                                 "wider than {} of it ({} points at least) "
                                 "within {}",
                                 o.targetWidth, SpeedupSettledPoints,
                                 formatSeconds(o.budgetS))
                   : "",
               o.seed, out);
  else if (!o.quiet && !o.autoDelays && !o.adaptive)
    fmt::print(stderr,
               "perfctl: {} runs ({} group(s) x {} delays x {} repeats, plus "
               "{} unarmed), seed {}, into {}\n",
               state.plan.runs.size(), state.plan.groups.size(),
               state.plan.delays.size(), o.repeats, o.repeats, o.seed, out);
  else if (!o.quiet)
    fmt::print(
        stderr, "perfctl: {} group(s), {}, {} repeats{}, seed {}, into {}\n",
        state.plan.groups.size(),
        o.autoDelays ? "delays chosen per group by a pilot"
                     : fmt::format("{} delays", state.plan.delays.size()),
        o.repeats,
        o.adaptive ? fmt::format(", then more where an answer is unsettled "
                                 "(inconclusive, or a pass-through interval "
                                 "wider than {}) within {}",
                                 o.targetWidth, formatSeconds(o.budgetS))
                   : "",
        o.seed, out);
  std::vector<std::string> names, files;
  for (const Group &g : state.plan.groups) {
    names.push_back(g.name);
    files.push_back(g.file);
  }
  int rc = runPlannedRuns(state, names, files);
  warnIfMachineBusy(state);
  std::string error;
  if (rc != 0) {
    fmt::print(stderr, "perfctl: error: {}\n", state.error);
    if (std::filesystem::exists(out + "/sweep.json"))
      fmt::print(stderr,
                 "perfctl: {} of {} runs measured; kept in {}/sweep.json\n",
                 std::count_if(state.records.begin(), state.records.end(),
                               [](const RunRecord &r) { return r.measured; }),
                 state.plan.runs.size(), out);
    return rc;
  }
  if (state.plan.speedup())
    return reportSpeedups(state, names, files);
  SweepAnalysis analysis = analyzeSweep(names, files, state.plan.delays,
                                        pointsOf(state), o.analysis);
  recordSizing(state, analysis);
  adviseUnsettled(state, analysis);
  warnWhereThreadsTookTurns(state, analysis);
  if (args.crossCheck == "auto") {
    double elapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    // The speed-bump answer is kept on disk first: a cross-check that is
    // interrupted loses nothing measured before it.
    if (!writeSweepJson(state, &analysis, error))
      return fmt::print(stderr, "perfctl: error: {}\n", error), 1;
    if (int rc = runCrossCheck(state, analysis, o.budgetS - elapsedS))
      return rc;
  }
  if (!writeSweepJson(state, &analysis, error))
    return fmt::print(stderr, "perfctl: error: {}\n", error), 1;
  std::string message;
  bool plotted = writePlot(state, analysis, message);
  if (!plotted)
    fmt::print(stderr, "perfctl: warning: {}\n", message);
  if (!writeMarkdown(state, analysis, plotted, error))
    return fmt::print(stderr, "perfctl: error: {}\n", error), 1;
  if (!o.quiet)
    fmt::print(stderr, "perfctl: wrote {0}/sweep.json, {0}/report.md{1}\n", out,
               plotted ? " and " + out + "/plot.svg" : "");
  fmt::print("{}\n", analysis.answer);
  return 0;
}

int perfcc::perfctl::usageError(const std::string &message) {
  fmt::print(stderr, "perfctl: error: {}\n", message);
  return 2;
}

CLI::App *perfcc::perfctl::addSweepCommand(CLI::App &app, SweepArgs &args) {
  CLI::App *sweep = app.add_subcommand(
      "sweep", "slow the targets down at several delays (or speed them up "
               "virtually, --speedup) and measure throughput: which "
               "functions are on the critical path");
  addSweepOptions(*sweep, args);
  return sweep;
}
