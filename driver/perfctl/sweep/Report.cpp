//===- Report.cpp - sweep.json and report.md ------------------------------===//
#include "sweep/Report.h"

#include "run/CpuPinning.h"
#include "run/MachineLoad.h"
#include "run/OtherProcesses.h"
#include "speedup/Report.h"
#include "sweep/Progress.h"
#include "sweep/ReportJson.h"
#include "sweep/Sizing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#ifndef PERFCC_VERSION_STRING
#define PERFCC_VERSION_STRING "unknown"
#endif

namespace fs = std::filesystem;

namespace perfcc::perfctl {

using report::estimate;
using report::interval;
using report::json;
using report::number;
using report::summary;

namespace {

const char *sourceName(ThroughputSource source) {
  switch (source) {
  case ThroughputSource::Progress:
    return "progress";
  case ThroughputSource::WallTime:
    return "wall-time";
  case ThroughputSource::Regex:
    return "regex";
  }
  return "?";
}

json runJson(const SweepState &state, const RunRecord &r) {
  json run = {
      {"index", r.plan.index},
      {"group", r.plan.armed() ? json(state.plan.groups[r.plan.group].name)
                               : json(nullptr)},
      {"armed", r.plan.armed()},
      {"delay_ns", r.plan.delayNs},
      {"repeat", r.plan.repeat},
      {"folder", r.folder},
      {"started", r.command.started},
      {"exit_status", r.command.started && !r.command.signal
                          ? json(r.command.exitStatus)
                          : json(nullptr)},
      {"signal", r.command.signal ? json(r.command.signal) : json(nullptr)},
      {"wall_s", number(r.command.wallNs / 1e9)},
      {"cpu_s",
       r.command.cpuNs >= 0 ? number(r.command.cpuNs / 1e9) : json(nullptr)},
      {"other_cpu_cores", r.command.otherCpuCores() >= 0
                              ? number(r.command.otherCpuCores())
                              : json(nullptr)},
      {"cpu_wait_share", r.command.cpuWaitShare() >= 0
                             ? number(r.command.cpuWaitShare())
                             : json(nullptr)},
      {"measured", r.measured},
      {"disturbed", r.disturbed}};
  if (state.plan.speedup())
    run["speedup_percent"] =
        r.plan.speedupPercent ? json(r.plan.speedupPercent) : json(nullptr);
  if (!r.command.busiestOthers.empty())
    run["busiest_other_processes"] = describeProcesses(r.command.busiestOthers);
  if (r.measured || r.disturbed) {
    const RunOutcome &o = r.outcome;
    run["progress"] = o.progress.empty() ? json(nullptr) : json(o.progress);
    run["throughput"] = number(o.throughput);
    run["work_units"] = number(o.workUnits);
    run["window_ns"] = number(o.windowNs);
    run["time_per_unit_ns"] = number(o.timePerUnitNs);
    run["delayed_calls"] = o.delayedCalls;
    run["delivered_ns"] = number(o.deliveredNs);
    run["delay_per_unit_ns"] = number(o.delayPerUnitNs);
    run["delayed_calls_per_unit"] = number(r.delayedCallsPerUnit);
    run["mutex_wait_share"] = number(o.mutexWaitShare);
    run["target_ns_per_call"] =
        r.targetNsPerCall >= 0 ? number(r.targetNsPerCall) : json(nullptr);
    run["target_work_ns_per_call"] = r.targetWorkNsPerCall >= 0
                                         ? number(r.targetWorkNsPerCall)
                                         : json(nullptr);
    run["target_held_share"] =
        r.targetHeldShare >= 0 ? number(r.targetHeldShare) : json(nullptr);
    if (o.speedup) {
      run["virtual_throughput"] = number(o.virtualThroughput);
      run["effective_window_ns"] = number(o.effectiveWindowNs);
      run["inserted_ns"] = number(o.insertedNs);
      run["paid_ns"] = number(o.paidNs);
      run["speedup_valid"] = o.speedupValid;
      run["speedup_reason"] = o.speedupReason;
    }
  }
  run["error"] = r.error.empty() ? json(nullptr) : json(r.error);
  return run;
}

/// What else ran on the machine during the runs made so far.
json machineJson(const SweepState &state) {
  MachineUse m = machineUseOf(state.records);
  if (!m.known())
    return json(nullptr);
  return {{"cpus", m.cpus},
          {"other_cpu_cores_mean", number(m.otherCoresMean)},
          {"other_cpu_cores_max", number(m.otherCoresMax)},
          {"busy", m.busy()},
          {"disturbed_runs_made_again", state.remade},
          {"settled", !state.stopRemaking},
          {"busiest_other_processes", state.busiestOthers.empty()
                                          ? json(nullptr)
                                          : json(state.busiestOthers)}};
}

json callRateJson(const CallRateModel &m) {
  if (m.runs.empty())
    return json(nullptr);
  return {{"applies", m.applies},
          {"why", m.why},
          {"harm", report::line(m.harm, "ns_per_call")},
          {"period", report::line(m.period, "slope")}};
}

/// null where no cross-check was wanted (sweep/CrossCheck.h).
json crossCheckJson(const CrossCheck &c) {
  if (!c.wanted)
    return nullptr;
  json levels = json::array();
  for (const auto &[percent, gain] : c.levels)
    levels.push_back({{"percent", percent},
                      {"gain_percent", c.valid ? estimate(gain) : nullptr}});
  return {{"ran", c.ran},
          {"why_wanted", c.callRate     ? "call_rate"
                         : c.holdsMutex ? "holds_mutex"
                                        : "beside_mutex"},
          {"valid", c.ran && c.valid},
          {"why", c.why},
          {"folder", c.ran ? json("cross-check") : json(nullptr)},
          {"percent", c.ran ? json(c.percent) : json(nullptr)},
          {"gain_percent",
           c.ran && c.valid ? estimate(c.gainPercent) : json(nullptr)},
          {"levels", levels}};
}

json groupJson(const GroupAnalysis &g) {
  json levels = json::array();
  for (const LevelStats &l : g.levels)
    levels.push_back({{"delay_ns", l.delayNs},
                      {"runs", l.throughput.n},
                      {"throughput", summary(l.throughput)},
                      {"time_per_unit_ns", summary(l.timePerUnitNs)},
                      {"delay_per_unit_ns", number(l.delayPerUnitNs)},
                      {"delayed_calls_per_unit", number(l.delayedCallsPerUnit)},
                      {"pass_through", estimate(l.passThrough)}});
  json extrapolations = json::array();
  for (const Extrapolation &e : g.extrapolations)
    extrapolations.push_back(
        {{"speedup_ns", e.speedupNs},
         {"percent", e.percent ? json(e.percent) : json(nullptr)},
         {"used_ns", number(e.usedNs)},
         {"capped", e.capped},
         {"valid", e.valid},
         {"gain_percent", estimate(e.gainPercent)},
         {"model", e.byCrossCheck ? "cross_check"
                   : e.byCallRate ? "call_rate"
                                  : "line"},
         {"line_gain_percent", e.byCallRate || e.byCrossCheck
                                   ? estimate(e.lineGainPercent)
                                   : json(nullptr)},
         {"call_rate_gain_percent",
          e.byCallRate ? estimate(e.callRateGainPercent) : json(nullptr)},
         {"note", e.note}});
  const HingeTest &h = g.hinge;
  return {
      {"name", g.name},
      {"file", g.file},
      {"shape", shapeName(g.shape)},
      {"verdict", g.verdict},
      {"evidence", g.evidence},
      {"pass_through", estimate(g.passThrough)},
      {"slack_ns_per_call",
       g.shape == Shape::Threshold ? number(g.slackNsPerCall) : json(nullptr)},
      {"predicted_from", slopeSourceName(g.slopeSource)},
      {"noise_percent", number(g.noisePercent)},
      {"overhead_percent", estimate(g.overheadPercent)},
      {"calls_per_unit", number(g.callsPerUnit)},
      {"target_ns_per_call",
       g.targetNsPerCall >= 0 ? number(g.targetNsPerCall) : json(nullptr)},
      {"target_work_ns_per_call", g.targetWorkNsPerCall >= 0
                                      ? number(g.targetWorkNsPerCall)
                                      : json(nullptr)},
      {"held_share", g.heldShare >= 0 ? number(g.heldShare) : json(nullptr)},
      {"cpu_wait_share",
       {{"undelayed", g.cpuWaitShareUndelayed >= 0
                          ? number(g.cpuWaitShareUndelayed)
                          : json(nullptr)},
        {"delayed", g.cpuWaitShareDelayed >= 0 ? number(g.cpuWaitShareDelayed)
                                               : json(nullptr)}}},
      {"took_turns", g.tookTurns},
      {"levels", levels},
      {"fit",
       {{"line", report::line(g.line, "slope")},
        {"hinge",
         {{"ok", h.ok},
          {"knee_ns_per_unit", number(h.fit.knee)},
          {"knee_ci", interval(h.kneeCI)},
          {"intercept_ns", number(h.fit.intercept)},
          {"slope", number(h.fit.slope)},
          {"slope_ci", interval(h.slopeCI)},
          {"sse", number(h.fit.sse)},
          {"f", number(h.fStatistic)},
          {"p", number(h.pValue)}}},
        {"before_knee",
         g.flatPart.ok ? report::line(g.flatPart, "slope") : json(nullptr)},
        {"near_no_delay",
         g.nearPart.ok ? report::line(g.nearPart, "slope") : json(nullptr)}}},
      {"call_rate_model", callRateJson(g.callRate)},
      {"extrapolation", extrapolations},
      {"cross_check", crossCheckJson(g.crossCheck)}};
}

} // namespace

std::string remadeSentence(const SweepState &state) {
  if (!state.remade)
    return "";
  std::string when =
      state.stopRemaking
          ? fmt::format("; the machine did not settle within {:.0f} s of the "
                        "last, so later disturbed runs were kept",
                        SettleWaitS)
          : " once the machine had settled";
  return fmt::format(
      "{} run(s) during which other processes took more than {} of a core "
      "were made again{}. The disturbed measurements stay in sweep.json "
      "(`\"disturbed\": true`), unused. The busiest other processes: {}.\n\n",
      state.remade, BusyMachineCores, when,
      state.busiestOthers.empty() ? "not seen (they came and went within a run)"
                                  : state.busiestOthers);
}

std::string renderSweepJson(const SweepState &state,
                            const SweepAnalysis *analysis,
                            const SpeedupAnalysis *speedup) {
  const SweepOptions &o = state.options;
  json delays = json::array(), delayNames = json::array();
  for (std::uint64_t d : state.plan.delays) {
    delays.push_back(d);
    delayNames.push_back(formatDelay(d));
  }
  json groups = json::array();
  for (const Group &g : state.plan.groups)
    groups.push_back({{"name", g.name}, {"file", g.file}});
  json runs = json::array();
  for (const RunRecord &r : state.records)
    runs.push_back(runJson(state, r));
  json doc = {
      {"perfctl_version", PERFCC_VERSION_STRING},
      {"status", state.status},
      {"error", state.error.empty() ? json(nullptr) : json(state.error)},
      {"command", o.command},
      {"settings",
       {{"mode", state.plan.speedup() ? "speedup" : "delay"},
        {"delays_ns", delays},
        {"delays", delayNames},
        {"repeats", state.plan.repeats},
        {"seed", state.plan.seed},
        {"frequency", o.frequency},
        {"warmup_ms", o.warmupMs},
        {"window_ms", o.windowMs},
        {"throughput",
         {{"source", sourceName(o.throughput.source)},
          {"progress", o.throughput.progress},
          {"work", o.throughput.work},
          {"regex", o.throughput.regex}}},
        {"confidence", o.analysis.confidence},
        {"resamples", o.analysis.resamples},
        {"timeout_s", o.timeoutS}}},
      {"groups", groups},
      {"runs_planned", state.plan.runs.size()},
      {"runs", runs},
      {"machine", machineJson(state)},
      {"warnings", state.warnings}};
  doc["settings"]["delays_chosen"] = o.autoDelays ? "auto" : "given";
  doc["settings"]["repeats_mode"] = o.adaptive ? "adaptive" : "fixed";
  doc["settings"]["budget_s"] = o.budgetS;
  doc["settings"]["ci_width"] = o.targetWidth;
  doc["settings"]["pin"] =
      o.pin.empty() ? json(nullptr) : json(formatCpuList(o.pin));
  json sizing = json::array();
  for (std::size_t g = 0; g < state.sizing.size(); ++g) {
    const GroupSizing &gs = state.sizing[g];
    json ns = json::array(), names = json::array();
    if (!state.plan.speedup())
      for (std::uint64_t d : state.plan.delaysOf(g)) {
        ns.push_back(d);
        names.push_back(formatDelay(d));
      }
    sizing.push_back({{"name", state.plan.groups[g].name},
                      {"delays_ns", ns},
                      {"delays", names},
                      {"ladder", gs.ladder},
                      {"repeats", gs.repeats},
                      {"settled", gs.settled},
                      {"status", gs.status}});
  }
  doc["sizing"] = {
      {"stop", state.stop}, {"rounds", state.rounds}, {"groups", sizing}};
  if (state.plan.speedup()) {
    json &settings = doc["settings"];
    settings["speedups_percent"] = state.plan.speedups;
    settings["baseline_percent"] = BaselinePercent;
  }
  if (speedup)
    doc["analysis"] = speedupAnalysisJson(*speedup);
  if (analysis) {
    json groupStats = json::array(), ranking = json::array();
    for (const GroupAnalysis &g : analysis->groups)
      groupStats.push_back(groupJson(g));
    for (std::size_t i : analysis->ranking)
      ranking.push_back(analysis->groups[i].name);
    doc["analysis"] = {
        {"controls",
         {{"unarmed_throughput", summary(analysis->unarmedThroughput)},
          {"unarmed_time_per_unit_ns", summary(analysis->unarmedTimePerUnitNs)},
          {"noise_percent", number(analysis->noisePercent)},
          {"unarmed_cpu_wait_share", analysis->unarmedCpuWaitShare >= 0
                                         ? number(analysis->unarmedCpuWaitShare)
                                         : json(nullptr)}}},
        {"groups", groupStats},
        {"ranking", ranking},
        {"answer", analysis->answer}};
  }
  return doc.dump(1) + "\n";
}

bool writeAtomically(const fs::path &path, const std::string &text,
                     std::string &error) {
  fs::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary);
    out << text;
    if (!out.flush()) {
      error = fmt::format("cannot write {}", temporary.string());
      return false;
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    error = fmt::format("cannot write {}: {}", path.string(), ec.message());
    return false;
  }
  return true;
}

namespace {

/// "2us", or "10% (2us)" when asked as a percent of the call's work.
std::string asked(const Extrapolation &e) {
  return e.percent
             ? fmt::format("{}% ({})", e.percent, formatDelay(e.speedupNs))
             : formatDelay(e.speedupNs);
}

std::string cell(const Estimate &e, const char *format) {
  if (!std::isfinite(e.value))
    return "–";
  return fmt::format(fmt::runtime(format), e.value) +
         fmt::format(
             fmt::runtime(std::string(" [") + format + ", " + format + "]"),
             e.ci.lo, e.ci.hi);
}

} // namespace

bool writeSweepJson(const SweepState &state, const SweepAnalysis *analysis,
                    std::string &error, const SpeedupAnalysis *speedup) {
  return writeAtomically(fs::path(state.options.outDir) / "sweep.json",
                         renderSweepJson(state, analysis, speedup), error);
}

std::string renderMarkdown(const SweepState &state, const SweepAnalysis &a,
                           bool withPlot) {
  const SweepOptions &o = state.options;
  int percent = int(std::lround(o.analysis.confidence * 100));
  std::string delays;
  for (std::uint64_t d : state.plan.delays)
    delays += (delays.empty() ? "" : ", ") + formatDelay(d);
  std::string progressName = o.throughput.progress;
  for (const RunRecord &r : state.records)
    if (progressName.empty() && r.measured)
      progressName = r.outcome.progress;
  std::string source =
      o.throughput.source == ThroughputSource::Progress
          ? (progressName.empty() ? "the first progress point"
                                  : "progress point `" + progressName + "`")
      : o.throughput.source == ThroughputSource::WallTime
          ? fmt::format("wall time ({} units of work per run)",
                        o.throughput.work)
          : "the program's output, `--regex '" + o.throughput.regex + "'`";
  std::string md = "# perfctl sweep\n\n";
  if (!o.autoDelays && !o.adaptive)
    md += fmt::format(
        "`{}`: {} runs ({} group(s) x delays {} x {} repeats, "
        "plus {} unarmed controls) in rounds, each in random order (seed {}); "
        "throughput from {}.\n\n",
        fmt::join(o.command, " "), state.records.size() - state.remade,
        state.plan.groups.size(), delays, state.plan.repeats,
        state.plan.repeats, state.plan.seed, source);
  else
    md += fmt::format(
        "`{}`: {} runs in rounds, each in random order (seed {}); throughput "
        "from {}. The sweep sized itself: see below.\n\n",
        fmt::join(o.command, " "), state.records.size() - state.remade,
        state.plan.seed, source);
  if (MachineUse m = machineUseOf(state.records); m.known())
    md +=
        fmt::format("Other processes used {:.2f} of the {} CPUs on average "
                    "while the program ran ({:.2f} in the busiest run){}.\n\n",
                    m.otherCoresMean, m.cpus, m.otherCoresMax,
                    m.busy() ? ": see the warning below" : "");
  md += remadeSentence(state);
  md += "## Answer\n\n";
  for (std::size_t rank = 0; rank < a.ranking.size(); ++rank)
    md += fmt::format("{}. **{}**: {}\n", rank + 1,
                      a.groups[a.ranking[rank]].name,
                      a.groups[a.ranking[rank]].verdict);
  if (o.autoDelays || o.adaptive) {
    md += "\n## How the sweep sized itself\n\n";
    if (o.autoDelays)
      md += "Delays: `--delays auto`: a pilot of zero-delay runs measured "
            "each group, and each got its own ladder.\n";
    if (o.adaptive)
      md += fmt::format(
          "Repeats: adaptive: {} to begin with, then {} round(s) of another "
          "repeat for each group whose answer was unsettled (inconclusive, "
          "a pass-through interval wider than {}, or a threshold's knee "
          "less sure than that), within a budget of {}. "
          "Stopped: {}.\n",
          o.repeats, state.rounds, o.targetWidth, formatSeconds(o.budgetS),
          state.stop == "settled" ? "every group settled"
          : state.stop == "budget"
              ? "the next round would have overrun the budget"
              : fmt::format("a group reached {} repeats", MaxRepeats));
    md += "\n| group | delays | repeats | settled | why |\n"
          "| --- | --- | ---: | --- | --- |\n";
    for (std::size_t g = 0; g < state.sizing.size(); ++g) {
      std::string list;
      for (std::uint64_t d : state.plan.delaysOf(g))
        list += (list.empty() ? "" : ", ") + formatDelay(d);
      const GroupSizing &gs = state.sizing[g];
      md += fmt::format("| {} | {} | {} | {} | {}{} |\n",
                        state.plan.groups[g].name, list, gs.repeats,
                        gs.settled ? "yes" : "no", gs.status,
                        gs.ladder.empty() ? "" : "; " + gs.ladder);
    }
  }
  md += "\n## Controls\n\n";
  md += fmt::format("| runs | throughput (median) | {}% CI | IQR | noise |\n"
                    "| --- | ---: | ---: | ---: | ---: |\n",
                    percent);
  const Summary &u = a.unarmedThroughput;
  md += fmt::format("| unarmed | {:.4g}/s | [{:.4g}, {:.4g}] | {:.3g} | "
                    "{:.2f}% |\n",
                    u.median, u.medianCI.lo, u.medianCI.hi, u.iqr,
                    a.noisePercent);
  for (const GroupAnalysis &g : a.groups) {
    if (g.levels.empty() || g.levels[0].delayNs != 0)
      continue;
    const Summary &s = g.levels[0].throughput;
    md += fmt::format("| {} armed, delay 0 | {:.4g}/s | [{:.4g}, {:.4g}] | "
                      "{:.3g} | {:.2f}% |\n",
                      g.name, s.median, s.medianCI.lo, s.medianCI.hi, s.iqr,
                      g.noisePercent);
  }
  md += "\nNoise is the robust coefficient of variation (1.4826 MAD / median) "
        "of the time per unit of work. Overhead of arming the bump at zero "
        "delay (time per unit, against unarmed):";
  for (const GroupAnalysis &g : a.groups)
    md += fmt::format(" {} {};", g.name, cell(g.overheadPercent, "{:+.2f}%"));
  md += "\n";

  for (const GroupAnalysis &g : a.groups) {
    md += fmt::format("\n## {} (`{}`)\n\n**{}**: {}\n\n", g.name, g.file,
                      shapeName(g.shape), g.verdict);
    for (const std::string &line : g.evidence)
      md += "- " + line + "\n";
    md += fmt::format(
        "\n| delay per call | runs | throughput (median) | {}% CI | IQR | "
        "time per unit | delay injected per unit | pass-through |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        percent);
    for (const LevelStats &l : g.levels)
      md += fmt::format(
          "| {} | {} | {:.4g}/s | [{:.4g}, {:.4g}] | {:.3g} | {} | {} | {} |\n",
          formatDelay(l.delayNs), l.throughput.n, l.throughput.median,
          l.throughput.medianCI.lo, l.throughput.medianCI.hi, l.throughput.iqr,
          formatDuration(l.timePerUnitNs.median),
          formatDuration(l.delayPerUnitNs), cell(l.passThrough, "{:.2f}"));
    md += fmt::format("\n| if each call were faster by | throughput | {}% CI "
                      "| note |\n| ---: | ---: | ---: | --- |\n",
                      percent);
    for (const Extrapolation &e : g.extrapolations)
      md += e.valid
                ? fmt::format("| {} | {:+.1f}% | [{:+.1f}%, {:+.1f}%] | "
                              "{} |\n",
                              asked(e), e.gainPercent.value,
                              e.gainPercent.ci.lo, e.gainPercent.ci.hi, e.note)
                : fmt::format("| {} | – | – | {} |\n", asked(e), e.note);
  }
  if (!state.warnings.empty()) {
    md += "\n## Warnings\n\n";
    for (const std::string &w : state.warnings)
      md += "- " + w + "\n";
  }
  if (withPlot)
    md += "\n## Plot\n\n![throughput against delay](plot.svg)\n";
  md += "\nHow to read this report: docs/perfctl.md.\n";
  return md;
}

bool writeMarkdown(const SweepState &state, const SweepAnalysis &analysis,
                   bool withPlot, std::string &error) {
  return writeAtomically(fs::path(state.options.outDir) / "report.md",
                         renderMarkdown(state, analysis, withPlot), error);
}

} // namespace perfcc::perfctl
