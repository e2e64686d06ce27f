//===- Rounds.cpp - a sweep's runs: pilot, first repeats, rounds ----------===//
#include "sweep/Rounds.h"

#include "sweep/GroupRanking.h"
#include "sweep/Progress.h"
#include "sweep/Report.h"
#include "sweep/Sizing.h"
#include "sweep/Statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

namespace perfcc::perfctl {

namespace {

/// The delay-0 runs of each group and the unarmed controls, then each
/// group's ladder from what they measured (--delays auto).
int runPilot(SweepState &state) {
  SweepPlan &plan = state.plan;
  const SweepOptions &o = state.options;
  // Before the ladders exist, every group's delays are {0}.
  appendRounds(plan, PilotRepeats, o.seed);
  if (!o.quiet)
    fmt::print(stderr,
               "perfctl: pilot: {} runs at delay 0 ({} per group, and the "
               "unarmed control) to choose the delays\n",
               plan.runs.size(), PilotRepeats);
  if (int rc = runSweep(state))
    return rc;
  std::vector<RunPoint> points = pointsOf(state);
  std::set<std::uint64_t> every;
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    std::vector<double> times, calls;
    for (const RunPoint &p : points)
      if (p.group == int(g)) {
        times.push_back(p.timePerUnitNs);
        calls.push_back(p.delayedCallsPerUnit);
      }
    Ladder ladder = chooseLadder(median(times), median(calls));
    if (!ladder.ok) {
      state.status = "failed";
      state.error = fmt::format("{}: cannot choose its delays: {}; give "
                                "--delays",
                                plan.groups[g].name, ladder.why);
      std::string ignored;
      writeSweepJson(state, nullptr, ignored);
      return 1;
    }
    plan.groupDelays.push_back(ladder.delays);
    every.insert(ladder.delays.begin(), ladder.delays.end());
    state.sizing[g].ladder = ladder.why;
    if (!o.quiet) {
      std::string list;
      for (std::uint64_t d : ladder.delays)
        list += (list.empty() ? "" : ",") + formatDelay(d);
      fmt::print(stderr, "perfctl: {}: delays {} ({})\n", plan.groups[g].name,
                 list, ladder.why);
    }
  }
  plan.delays.assign(every.begin(), every.end());
  // Run-length guidance from the pilot's controls: noise this large needs
  // many repeats to see a delay's effect, and longer runs average it out.
  std::vector<double> control;
  for (const RunPoint &p : points)
    if (p.group < 0)
      control.push_back(p.timePerUnitNs);
  double noise = 100 * 1.4826 * mad(control) / median(control);
  if (noise > PilotNoisyPercent) {
    state.warnings.push_back(fmt::format(
        "the pilot's unarmed runs vary by {:.1f}% run to run (robust CV): "
        "answers will need many repeats; longer runs (more work per run, or "
        "a longer --window-ms) or a quieter machine lower it",
        noise));
    fmt::print(stderr, "perfctl: warning: {}\n", state.warnings.back());
  }
  // The first repeats, round by round, each in its own order (appendRounds
  // says why), every level in every round: the zero-delay runs and the
  // controls too, though the pilot made some already. The pilot's all come
  // first, so a slow start would otherwise fall on the baseline alone, the
  // reference of every pass-through and gain (a slow minute took two of a
  // hot function's three zero-delay runs from 42 to 57 ns of own work a
  // call, and its extrapolation at 60% faster from about +64% to +98%).
  appendRounds(plan, o.repeats, o.seed + 1);
  return 0;
}

/// The runs at each delay of group \p g made so far, at the least.
unsigned repeatsMade(const SweepState &state, std::size_t g) {
  unsigned least = ~0u;
  for (std::uint64_t delay : state.plan.delaysOf(g)) {
    unsigned n = 0;
    for (const RunRecord &r : state.records)
      n += r.measured && r.plan.group == int(g) && r.plan.delayNs == delay;
    least = std::min(least, n);
  }
  return least == ~0u ? 0 : least;
}

/// The runs at each speedup of group \p g made so far, at the least.
unsigned speedupRepeatsMade(const SweepState &state, std::size_t g) {
  unsigned least = ~0u;
  for (unsigned percent : state.plan.speedups) {
    unsigned n = 0;
    for (const RunRecord &r : state.records)
      n += r.measured && r.plan.group == int(g) &&
           r.plan.speedupPercent == percent;
    least = std::min(least, n);
  }
  return least == ~0u ? 0 : least;
}

/// A speedup sweep's groups: settled when the headline gain's interval is
/// narrow enough (speedup/Analysis.h), into state.sizing.
void recordSpeedupSizing(SweepState &state,
                         const std::vector<std::string> &names,
                         const std::vector<std::string> &files) {
  const SweepOptions &o = state.options;
  SpeedupAnalysis analysis = analyzeSpeedups(
      names, files, state.plan.speedups, speedupPointsOf(state), o.analysis);
  for (std::size_t g = 0; g < analysis.groups.size(); ++g) {
    SpeedupSettled s = isSettled(analysis.groups[g], o.targetWidth);
    GroupSizing &sizing = state.sizing[g];
    sizing.settled = s.settled;
    sizing.status = s.why;
    sizing.repeats = speedupRepeatsMade(state, g);
  }
}

/// "--budget 30m": three times the budget that ran out, in whole minutes.
std::string moreBudget(const SweepOptions &o) {
  return fmt::format("--budget {}m", int(std::ceil(o.budgetS * 3 / 60)));
}

/// Mean seconds of the runs of group \p g (-1: the unarmed control).
double meanRunSeconds(const SweepState &state, int g) {
  double sum = 0;
  unsigned n = 0;
  for (const RunRecord &r : state.records)
    if (r.plan.group == g) {
      sum += r.command.wallNs / 1e9;
      ++n;
    }
  return n ? sum / n : 0;
}

} // namespace

void recordSizing(SweepState &state, const SweepAnalysis &analysis) {
  for (std::size_t g = 0; g < analysis.groups.size(); ++g) {
    Settled s = isSettled(analysis.groups[g], state.options.targetWidth);
    GroupSizing &sizing = state.sizing[g];
    sizing.settled = s.settled;
    sizing.status = s.why;
    sizing.repeats = repeatsMade(state, g);
  }
}

void adviseUnsettled(const SweepState &state, SweepAnalysis &analysis) {
  const SweepOptions &o = state.options;
  for (GroupAnalysis &g : analysis.groups) {
    // Threads that took turns for a CPU are the machine's doing, which more
    // runs would measure again: its verdict says so already.
    if (g.shape != Shape::Inconclusive || g.tookTurns)
      continue;
    if (state.stop == stopReasonName(StopReason::Budget))
      g.verdict += fmt::format("; the {} budget ran out before it settled: "
                               "give it more ({})",
                               formatSeconds(o.budgetS), moreBudget(o));
    else if (state.stop == stopReasonName(StopReason::Fixed))
      g.verdict += "; more runs would tell: leave out --repeats (adaptive "
                   "repeats), or add --budget 10m";
    else if (state.stop == stopReasonName(StopReason::MaxRepeats))
      g.verdict += fmt::format("; {} repeats did not settle it: the program "
                               "is too noisy for these delays (longer runs, "
                               "or --delays with larger ones)",
                               MaxRepeats);
  }
  analysis.answer = answerOf(analysis.groups, analysis.ranking);
}

void adviseUnsettled(const SweepState &state, SpeedupAnalysis &analysis) {
  const SweepOptions &o = state.options;
  if (!o.adaptive)
    return;
  for (std::size_t g = 0; g < analysis.groups.size(); ++g)
    if (!state.sizing[g].settled)
      analysis.groups[g].verdict +=
          fmt::format(" (unsettled: {}{})", state.sizing[g].status,
                      state.stop == stopReasonName(StopReason::Budget)
                          ? fmt::format("; the {} budget ran out: {}",
                                        formatSeconds(o.budgetS), moreBudget(o))
                          : "");
  analysis.answer = answerOf(analysis.groups, analysis.ranking);
}

int runPlannedRuns(SweepState &state, const std::vector<std::string> &names,
                   const std::vector<std::string> &files) {
  const SweepOptions &o = state.options;
  auto start = std::chrono::steady_clock::now();
  state.sizing.assign(state.plan.groups.size(), GroupSizing{});
  if (o.autoDelays)
    if (int rc = runPilot(state))
      return rc;
  if (int rc = runSweep(state))
    return rc;
  if (!o.adaptive)
    return 0;
  for (;;) {
    std::vector<bool> settled;
    std::vector<unsigned> repeats;
    std::vector<double> roundS;
    std::string unsettled;
    if (state.plan.speedup())
      recordSpeedupSizing(state, names, files);
    else
      recordSizing(state, analyzeSweep(names, files, state.plan.delays,
                                       pointsOf(state), o.analysis));
    for (std::size_t g = 0; g < state.sizing.size(); ++g) {
      const GroupSizing &sizing = state.sizing[g];
      settled.push_back(sizing.settled);
      repeats.push_back(sizing.repeats);
      std::size_t runsPerRound = state.plan.speedup()
                                     ? state.plan.speedups.size()
                                     : state.plan.delaysOf(g).size();
      roundS.push_back(meanRunSeconds(state, int(g)) * double(runsPerRound));
      if (!sizing.settled)
        unsettled +=
            (unsettled.empty() ? "" : "; ") + names[g] + ": " + sizing.status;
    }
    double elapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    NextRound next = nextRound(settled, repeats, roundS,
                               meanRunSeconds(state, -1), elapsedS, o.budgetS);
    if (next.groups.empty()) {
      state.stop = stopReasonName(next.stop);
      if (!o.quiet && next.stop != StopReason::Settled)
        fmt::print(stderr,
                   "perfctl: stopped adding runs ({}) with {} "
                   "unsettled: {}\n",
                   next.stop == StopReason::Budget
                       ? fmt::format("the next round would pass the {} "
                                     "budget",
                                     formatSeconds(o.budgetS))
                       : fmt::format("{} repeats", MaxRepeats),
                   unsettled.empty() ? "none" : "groups", unsettled);
      return 0;
    }
    ++state.rounds;
    std::string who;
    for (int g : next.groups)
      who += (who.empty() ? "" : ", ") + names[std::size_t(g)];
    if (!o.quiet)
      fmt::print(stderr, "perfctl: round {}: another repeat of {} ({})\n",
                 state.rounds, who, unsettled);
    appendShuffled(state.plan, roundOf(state.plan, next.groups, true),
                   o.seed + 1 + state.rounds);
    if (int rc = runSweep(state))
      return rc;
  }
}

} // namespace perfcc::perfctl
