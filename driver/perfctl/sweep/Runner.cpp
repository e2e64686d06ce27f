//===- Runner.cpp - run a sweep's plan, run by run ------------------------===//
#include "sweep/Runner.h"

#include "perfcc/Selection.h"
#include "run/CpuPinning.h"
#include "run/MachineLoad.h"
#include "run/OtherProcesses.h"
#include "sweep/Progress.h"
#include "sweep/Report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace perfcc::perfctl {

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The last non-empty line of \p text, at most 300 characters.
std::string lastLine(const std::string &text) {
  std::size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos)
    return "";
  std::size_t start = text.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  std::string line = text.substr(start, end + 1 - start);
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

/// "'a', 'b'" from the including patterns of \p selection.
std::string includePatterns(const Selection &selection) {
  std::string list;
  for (const Rule &rule : selection.rules())
    if (!rule.exclude)
      list += (list.empty() ? "'" : ", '") + rule.text + "'";
  return list;
}

/// Why an armed run with a nonzero delay delayed nothing.
std::string nothingDelayed(const Group &group, const Selection &selection,
                           const RunMeasurement &m) {
  TargetUse use = matchTargets(selection, m);
  if (use.functions.empty()) {
    std::string probes;
    for (std::size_t i = 0; i < m.functions.size() && i < 6; ++i)
      probes += (i ? ", " : "") + m.functions[i].name;
    if (m.functions.size() > 6)
      probes += ", ...";
    std::size_t includes = 0;
    for (const Rule &rule : selection.rules())
      includes += !rule.exclude;
    return fmt::format("{}: {} {} matched no probed function that ran (the "
                       "program's probes that ran: {})",
                       group.file, includes == 1 ? "target" : "targets",
                       includePatterns(selection),
                       probes.empty() ? "none" : probes);
  }
  return fmt::format("{}: its targets select {} ({} calls in the run), but "
                     "no call was delayed in the measurement window",
                     group.file, fmt::join(use.functions, ", "), use.calls);
}

/// Why a virtual speedup run sped nothing up, or "" when it did.
std::string notSpedUp(const Group &group, const Selection &selection,
                      const RunMeasurement &m) {
  if (!m.hasSpeedup)
    return "the runtime reported no virtual speedup (no \"speedup\" in its "
           "summary): build the program with a perfcc that has them";
  TargetUse use = matchTargets(selection, m);
  if (use.functions.empty())
    return nothingDelayed(group, selection, m);
  if (m.insertedNs == 0)
    return fmt::format("{}: its targets select {} ({} calls in the run), but "
                       "no time was taken off them in the measurement window "
                       "(at {}%, a call shorter than {} clock ticks takes "
                       "nothing off)",
                       group.file, fmt::join(use.functions, ", "), use.calls,
                       m.speedupPercent,
                       m.speedupPercent ? 100 / m.speedupPercent : 0);
  return "";
}

} // namespace

int runSweep(SweepState &state) {
  const SweepOptions &options = state.options;
  SweepPlan &plan = state.plan;
  fs::path out = fs::absolute(options.outDir);
  std::error_code ec;
  // A previous sweep's run folders go (only those: names of digits, or
  // digits and ".disturbed-K"), so the folder holds this sweep's runs and
  // nothing else of perfctl's.
  for (fs::directory_iterator it(out / "runs", ec), end;
       state.records.empty() && !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::string number = name.substr(0, name.find(".disturbed-"));
    std::string kept = name.substr(number.size());
    if (it->is_directory() && !number.empty() &&
        number.find_first_not_of("0123456789") == std::string::npos &&
        (kept.empty() ||
         kept.find_first_not_of("0123456789", 11) == std::string::npos))
      fs::remove_all(it->path(), ec);
  }
  ec.clear();
  fs::create_directories(out / "runs", ec);
  if (ec) {
    state.status = "failed";
    state.error = fmt::format("cannot create {}: {}", (out / "runs").string(),
                              ec.message());
    return 1;
  }

  std::vector<std::optional<Selection>> selections;
  std::vector<std::string> targetPaths;
  for (const Group &group : plan.groups) {
    std::string error;
    selections.push_back(Selection::parseFile(group.file, error));
    targetPaths.push_back(fs::absolute(group.file).string());
  }
  std::unique_ptr<OutputPattern> pattern;
  if (options.throughput.source == ThroughputSource::Regex) {
    std::string error;
    pattern = OutputPattern::compile(options.throughput.regex, error);
  }

  installInterruptHandlers();
  // The planned runs made so far: one record each, and one more for each
  // disturbed run made again.
  std::size_t first = state.records.size() - state.remade;
  SweepProgress progress(plan.runs.size() - first,
                         !options.quiet && isatty(STDERR_FILENO),
                         options.quiet ? nullptr : stderr);
  // Each warning once per sweep, though an adaptive sweep runs in rounds.
  auto warnOnce = [&](const std::string &warning) {
    if (std::find(state.warnings.begin(), state.warnings.end(), warning) !=
        state.warnings.end())
      return;
    state.warnings.push_back(warning);
    progress.clear();
    fmt::print(stderr, "perfctl: warning: {}\n", warning);
  };
  auto fail = [&](RunRecord &record, const std::string &why) {
    record.error = why;
    state.records.push_back(record);
    state.status = interrupted() ? "interrupted" : "failed";
    state.error = fmt::format("{}run {}/{} ({}): {}",
                              interrupted() ? "interrupted during " : "",
                              record.plan.index, plan.runs.size(),
                              describeRun(plan, record.plan), why);
    progress.clear();
    std::string ignored;
    writeSweepJson(state, nullptr, ignored);
    return interrupted() ? 130 : 1;
  };

  std::map<std::size_t, unsigned> remakes; // by planned run
  for (std::size_t next = first; next < plan.runs.size(); ++next) {
    const PlannedRun &run = plan.runs[next];
    if (interrupted()) {
      state.status = "interrupted";
      state.error = "interrupted before the last run";
      progress.clear();
      std::string ignored;
      writeSweepJson(state, nullptr, ignored);
      return 130;
    }
    RunRecord record;
    record.plan = run;
    record.folder = fmt::format("runs/{:04}", run.index);
    fs::path folder = out / record.folder;
    fs::create_directories(folder, ec);

    std::map<std::string, std::string> set = {{"PERFCC_OUT", folder.string()},
                                              {"PERFCC_MODE", "summary"}};
    // Only settings that differ from the runtime's defaults, and no delay
    // setting at all for the unarmed control (the runtime refuses a
    // frequency without targets): it must be the plain program.
    if (options.frequency != 1 && run.armed())
      set["PERFCC_FREQUENCY"] = std::to_string(options.frequency);
    if (options.warmupMs)
      set["PERFCC_START_MS"] = std::to_string(options.warmupMs);
    if (options.windowMs)
      set["PERFCC_DURATION_MS"] = std::to_string(options.windowMs);
    if (run.armed()) {
      set["PERFCC_DELAY_TARGETS"] = targetPaths[run.group];
      if (run.speedupPercent)
        set["PERFCC_SPEEDUP_PERCENT"] = std::to_string(run.speedupPercent);
      else
        set["PERFCC_DELAY_NS"] = std::to_string(run.delayNs);
    }
    std::vector<std::string> environment = makeEnvironment(
        {"PERFCC_DELAY_TARGETS", "PERFCC_DELAY_NS", "PERFCC_FREQUENCY",
         "PERFCC_SPEEDUP_PERCENT", "PERFCC_START_MS", "PERFCC_DURATION_MS",
         "SPEED_BUMP_*"},
        set);

    std::string description = describeRun(plan, run);
    progress.started(description);
    std::string stdoutPath = (folder / "stdout.txt").string();
    std::string stderrPath = (folder / "stderr.txt").string();
    {
      ScopedAffinity pinned(options.pin);
      record.command = runCommand(options.command, environment, stdoutPath,
                                  stderrPath, options.timeoutS);
    }
    const CommandResult &result = record.command;
    if (!result.started) {
      state.records.push_back(record);
      state.status = "failed";
      state.error = fmt::format("cannot run '{}': {}", options.command[0],
                                result.startError);
      progress.clear();
      std::string ignored;
      writeSweepJson(state, nullptr, ignored);
      return 1;
    }
    if (!result.ok()) {
      std::string why =
          fmt::format("'{}' {}", options.command[0], result.describe());
      std::string line = lastLine(readFile(stderrPath));
      if (!line.empty())
        why += ": " + line;
      return fail(record, why);
    }

    std::string error;
    std::optional<RunMeasurement> m = readRunFolder(folder.string(), error);
    if (!m)
      return fail(record, fmt::format("'{}' {}", options.command[0], error));
    // Every armed run's targets must have run: a zero-delay run too, since
    // it is what the delays are sized from (--delays auto) and the baseline
    // every delay is compared with.
    if (run.armed()) {
      const Group &group = plan.groups[run.group];
      if (run.speedupPercent) {
        if (std::string why = notSpedUp(group, *selections[run.group], *m);
            !why.empty())
          return fail(record, why);
      } else if (!m->hasDelay) {
        if (run.delayNs > 0)
          return fail(record, "the runtime reported no speed bumps (no "
                              "\"delay\" in its summary): build the program "
                              "with a perfcc that has them");
      } else if (m->delayedCalls == 0) {
        return fail(record, nothingDelayed(group, *selections[run.group], *m));
      }
    }
    if (run.armed() && (run.delayNs > 0 || run.speedupPercent))
      for (const std::string &unused :
           matchTargets(*selections[run.group], *m).unusedPatterns)
        warnOnce(
            fmt::format("{}: target matched no probed function that ran (none "
                        "has a probe, or none was called)",
                        unused));
    std::optional<RunOutcome> outcome =
        measureRun(*m, options.throughput, pattern.get(), result.wallNs,
                   readFile(stdoutPath), error);
    if (!outcome)
      return fail(record, error);
    if (run.speedupPercent && !outcome->speedupValid &&
        std::none_of(state.records.begin(), state.records.end(),
                     [&](const RunRecord &r) {
                       return r.measured && r.plan.group == run.group &&
                              r.plan.speedupPercent && !r.outcome.speedupValid;
                     }))
      warnOnce(
          fmt::format("{}: the runtime marks its virtual speedup invalid: {}",
                      plan.groups[run.group].name, outcome->speedupReason));
    record.outcome = *outcome;
    record.measured = true;
    record.delayedCallsPerUnit =
        outcome->workUnits > 0
            ? double(outcome->delayedCalls) / outcome->workUnits
            : 0;
    if (run.armed()) {
      TargetUse use = matchTargets(*selections[run.group], *m);
      if (use.calls)
        record.targetNsPerCall = use.inclusiveNs / double(use.calls);
      if (use.workCalls)
        record.targetWorkNsPerCall = double(use.workNs) / double(use.workCalls);
      if (use.workNs)
        record.targetHeldShare = use.heldWorkNs / double(use.workNs);
    }
    state.records.push_back(record);
    std::string line =
        outcome->speedup && run.armed()
            ? fmt::format("{:.4g} units/s, virtually {:.4g}",
                          outcome->throughput, outcome->virtualThroughput)
            : fmt::format("{:.4g} units/s", outcome->throughput);
    // Said as it happens, so a long sweep on a busy machine can be stopped.
    bool remake = result.disturbed() && !state.stopRemaking &&
                  remakes[next] < MaxRemakesPerRun;
    if (result.otherCpuCores() > BusyMachineCores)
      line += fmt::format(" (other processes used {:.2f} cores{})",
                          result.otherCpuCores(), remake ? "; made again" : "");
    if (result.disturbed() &&
        result.otherCpuCores() > state.busiestOthersCores) {
      state.busiestOthersCores = result.otherCpuCores();
      state.busiestOthers = describeProcesses(result.busiestOthers);
    }
    if (remake) {
      // Kept for the record under another name; the run is made again in
      // its own folder once the machine has settled.
      RunRecord &kept = state.records.back();
      kept.disturbed = true;
      kept.measured = false;
      kept.folder =
          fmt::format("runs/{:04}.disturbed-{}", run.index, ++remakes[next]);
      fs::remove_all(out / kept.folder, ec);
      fs::rename(folder, out / kept.folder, ec);
      ++state.remade;
    }
    progress.finished(description, result.wallNs, line);
    writeSweepJson(state, nullptr, error);
    if (remake) {
      if (!waitUntilQuiet(SettleWaitS, interrupted) && !interrupted()) {
        state.stopRemaking = true;
        warnOnce(fmt::format(
            "the machine did not settle within {:.0f} s of a disturbed run: "
            "other processes keep taking the CPU ({}), so disturbed runs are "
            "no longer made again",
            SettleWaitS,
            state.busiestOthers.empty()
                ? "which, perfctl could not see"
                : "the busiest: " + state.busiestOthers));
      }
      progress.again();
      --next;
    }
  }
  progress.clear();
  state.status = "complete";
  return 0;
}

void warnIfMachineBusy(SweepState &state) {
  MachineUse machine = machineUseOf(state.records);
  if (machine.busy()) {
    state.warnings.push_back(fmt::format(
        "other processes used {:.2f} of the {} CPUs on average while the "
        "program ran ({:.2f} in the busiest run): it did not have the machine "
        "to itself, so its threads may have taken turns instead of running "
        "side by side, which hides slack (thresholds read as linear); rerun "
        "on a quiet machine{}",
        machine.otherCoresMean, machine.cpus, machine.otherCoresMax,
        state.busiestOthers.empty()
            ? ""
            : " (the busiest other processes: " + state.busiestOthers + ")"));
    fmt::print(stderr, "perfctl: warning: {}\n", state.warnings.back());
  }
}

void warnWhereThreadsTookTurns(SweepState &state,
                               const SweepAnalysis &analysis) {
  for (const GroupAnalysis &g : analysis.groups) {
    if (!g.tookTurns)
      continue;
    state.warnings.push_back(fmt::format(
        "{}: the program's threads took turns for a CPU while it was delayed "
        "(some thread waited for one {:.0f}% of the time in its delayed runs, "
        "{:.0f}% without delay): other processes, a scheduler that "
        "stacks threads on fewer CPUs (a guest kernel packing its vCPUs) or a "
        "load perfctl cannot see; a spinning delay then takes a CPU from the "
        "threads beside it and hides their slack{}",
        g.name, 100 * g.cpuWaitShareDelayed, 100 * g.cpuWaitShareUndelayed,
        g.shape == Shape::Inconclusive ? ", so its answer is inconclusive"
                                       : ""));
    fmt::print(stderr, "perfctl: warning: {}\n", state.warnings.back());
  }
}

MachineUse machineUseOf(const std::vector<RunRecord> &records) {
  MachineUse use;
  use.cpus = usableCpus();
  double otherNs = 0, wallNs = 0;
  for (const RunRecord &record : records) {
    double cores = record.command.otherCpuCores();
    if (cores < 0 || record.disturbed)
      continue;
    otherNs += cores * record.command.wallNs;
    wallNs += record.command.wallNs;
    use.otherCoresMax = std::max(use.otherCoresMax, cores);
  }
  if (wallNs > 0)
    use.otherCoresMean = otherNs / wallNs;
  return use;
}

std::vector<SpeedupPoint> speedupPointsOf(const SweepState &state) {
  std::vector<SpeedupPoint> points;
  for (const RunRecord &record : state.records) {
    if (!record.measured)
      continue;
    SpeedupPoint p;
    p.group = record.plan.group;
    p.percent = record.plan.speedupPercent;
    p.throughput = record.outcome.throughput;
    p.virtualThroughput = record.outcome.virtualThroughput;
    p.valid = record.outcome.speedupValid;
    p.reason = record.outcome.speedupReason;
    points.push_back(p);
  }
  return points;
}

std::vector<RunPoint> pointsOf(const SweepState &state) {
  std::vector<RunPoint> points;
  for (const RunRecord &record : state.records) {
    if (!record.measured)
      continue;
    RunPoint p;
    p.group = record.plan.group;
    p.delayNs = record.plan.delayNs;
    p.throughput = record.outcome.throughput;
    p.timePerUnitNs = record.outcome.timePerUnitNs;
    p.delayPerUnitNs = record.outcome.delayPerUnitNs;
    p.delayedCallsPerUnit = record.delayedCallsPerUnit;
    p.targetNsPerCall = record.targetNsPerCall;
    p.targetWorkNsPerCall = record.targetWorkNsPerCall;
    p.targetHeldShare = record.targetHeldShare;
    p.mutexWaitShare = record.outcome.mutexWaitShare;
    p.cpuWaitShare = record.command.cpuWaitShare();
    p.wallNs = record.command.wallNs;
    points.push_back(p);
  }
  return points;
}

} // namespace perfcc::perfctl
