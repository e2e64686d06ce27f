//===- CrossCheck.cpp - a verdict from the other side ---------------------===//
#include "sweep/CrossCheck.h"

#include "speedup/Plot.h"
#include "speedup/Report.h"
#include "sweep/GroupRanking.h"
#include "sweep/Plan.h"
#include "sweep/Report.h"
#include "sweep/Rounds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace perfcc::perfctl {

namespace {

/// The verdict with the advice to cross-check by hand (either kind)
/// replaced by \p text (appended when the advice is not there).
std::string replaceAdvice(const std::string &verdict, const std::string &text) {
  for (std::string advice : {CrossCheckAdvice, HeldMutexCrossCheckAdvice,
                             CallRateCrossCheckAdvice}) {
    std::size_t at = verdict.find(advice);
    if (at != std::string::npos)
      return verdict.substr(0, at) + text + verdict.substr(at + advice.size());
  }
  return verdict + text;
}

/// The group's advice, with why it could not be followed.
std::string adviceWith(const GroupAnalysis &group, const std::string &why) {
  const CrossCheck &c = group.crossCheck;
  return std::string(c.callRate     ? CallRateCrossCheckAdvice
                     : c.holdsMutex ? HeldMutexCrossCheckAdvice
                                    : CrossCheckAdvice) +
         " (" + why + ")";
}

/// What the cross-check measured at \p percent, or null.
const Estimate *measuredAt(const CrossCheck &c, unsigned percent) {
  for (const auto &[measured, gain] : c.levels)
    if (measured == percent)
      return &gain;
  return nullptr;
}

/// A loss through a call rate: where the cross-check measured a percent an
/// extrapolation asks, the measurement is the estimate, brought within the
/// bracket of the line (the least the loss would be) and the call-rate
/// model (the most); a virtual speedup has its own bias (its pause is paid
/// in lumps, where a watcher's versions coalesce: config_watcher's
/// check_config at 30% less, -8.4% measured against -6.6% by the model and
/// -6.0% real, 2026-11-29), and the two fits say where the mechanism
/// allows the loss to be. Returns what the verdict says of it.
std::string bracketMeasuredLosses(GroupAnalysis &group) {
  const CrossCheck &c = group.crossCheck;
  unsigned asked = 0, bounded = 0;
  for (Extrapolation &e : group.extrapolations) {
    const Estimate *measured = e.percent ? measuredAt(c, e.percent) : nullptr;
    if (!measured || !e.valid || !e.byCallRate)
      continue;
    const Estimate &gain = *measured;
    ++asked;
    const Estimate &model = e.callRateGainPercent, &line = e.lineGainPercent;
    double lo = std::min(model.value, line.value),
           hi = std::max(model.value, line.value);
    // The interval within the two fits' own intervals' outer ends.
    double outerLo = std::min({lo, model.ci.lo, line.ci.lo}),
           outerHi = std::max({hi, model.ci.hi, line.ci.hi});
    Estimate taken;
    taken.value = std::clamp(gain.value, lo, hi);
    taken.ci = {std::clamp(gain.ci.lo, outerLo, taken.value),
                std::clamp(gain.ci.hi, taken.value, outerHi)};
    bool atBound = taken.value != gain.value;
    bounded += atBound;
    e.gainPercent = taken;
    e.byCrossCheck = true;
    std::string said = fmt::format(
        "measured by virtual speedups (the cross-check): {:+.1f}%{}; the "
        "line through the slow-downs says {:+.1f}% (the least), the "
        "call-rate model {:+.1f}% (the most)",
        gain.value,
        !atBound ? ""
        : taken.value == model.value
            ? ", beyond the call-rate model's loss, taken at it"
            : ", short of the line's loss, taken at it",
        line.value, model.value);
    // In place of the model's sentence; the rest (a loss, a cap) stays.
    std::string modelSaid = callRateNote(line.value);
    std::size_t at = e.note.find(modelSaid);
    e.note = at == std::string::npos
                 ? said + (e.note.empty() ? "" : "; " + e.note)
                 : e.note.replace(at, modelSaid.size(), said);
  }
  if (!asked)
    return "";
  return bounded ? "; the losses are the measured ones, brought within the "
                   "line's and the call-rate model's where they fell "
                   "outside"
                 : "; the losses are the measured ones, between the line's "
                   "(the least) and the call-rate model's (the most)";
}

/// A group that holds the contended mutex: where the cross-check measured
/// a percent an extrapolation asks and found less than the line (its whole
/// interval below the line's estimate), the measurement is the estimate
/// (the line cannot see the bottleneck move; it stays as the most a faster
/// call could give). Returns what the verdict says of it.
std::string takeMeasuredGains(GroupAnalysis &group) {
  const CrossCheck &c = group.crossCheck;
  unsigned lowered = 0, asked = 0;
  for (Extrapolation &e : group.extrapolations) {
    const Estimate *measured = e.percent ? measuredAt(c, e.percent) : nullptr;
    if (!measured || !e.valid || e.byCallRate)
      continue;
    const Estimate &gain = *measured;
    ++asked;
    // Less beyond its own interval: where the two agree within the
    // noise, the line (the narrower, from more runs) stands.
    if (!(gain.ci.hi < e.gainPercent.value))
      continue;
    ++lowered;
    e.lineGainPercent = e.gainPercent;
    e.gainPercent = gain;
    e.byCrossCheck = true;
    std::string line = fmt::format(
        "measured by virtual speedups (the cross-check): a shorter critical "
        "section moves the bottleneck off the mutex; the line through the "
        "slow-downs says {:+.1f}% (the most it could give)",
        e.lineGainPercent.value);
    e.note = e.note.empty() ? line : line + "; " + e.note;
  }
  if (!asked)
    return "";
  return lowered ? ", less than the line extrapolates: the mutex stops being "
                   "the bottleneck first, and the gains are the measured ones"
                 : ", as much as the line extrapolates (within its "
                   "interval) or more: the gains extrapolated stand";
}

} // namespace

std::vector<unsigned> crossCheckPercents(const AnalysisSettings &settings) {
  std::vector<unsigned> percents;
  for (unsigned p : settings.speedupPercents)
    if (p > BaselinePercent && p < 100)
      percents.push_back(p);
  std::sort(percents.begin(), percents.end());
  percents.erase(std::unique(percents.begin(), percents.end()), percents.end());
  if (percents.empty())
    percents = {25, 50};
  return percents;
}

std::string crossCheckBlocker(const SweepOptions &options) {
  if (options.throughput.source != ThroughputSource::Progress)
    return "a virtual speedup needs the throughput from a progress point";
  if (options.frequency != 1)
    return "a virtual speedup times every call, and --frequency is set";
  return {};
}

void applyCrossCheck(GroupAnalysis &group, const SpeedupGroup &measured) {
  CrossCheck &c = group.crossCheck;
  c.ran = true;
  c.valid = measured.valid;
  c.percent = measured.headlinePercent;
  c.gainPercent = measured.headline;
  c.levels.clear();
  for (const SpeedupLevel &level : measured.levels)
    if (level.percent != BaselinePercent)
      c.levels.emplace_back(level.percent, level.gainPercent);
  const char *where = c.callRate     ? "a loss through how often it runs"
                      : c.holdsMutex ? "holds a contended mutex"
                                     : "beside a contended mutex";
  if (!measured.valid) {
    c.why = measured.reason;
    group.verdict = replaceAdvice(
        group.verdict, fmt::format("; {}, and the virtual-speedup cross-check "
                                   "could not tell: {}",
                                   where, measured.reason));
    return;
  }
  const Estimate &gain = c.gainPercent;
  std::string measuredText =
      fmt::format("{:+.1f}% [{:+.1f}%, {:+.1f}%] if {}% faster", gain.value,
                  gain.ci.lo, gain.ci.hi, c.percent);
  if (c.callRate) {
    std::string meaning = bracketMeasuredLosses(group);
    // The verdict states the loss at the largest speedup asked, which the
    // measurement may have moved.
    group.verdict = negativeVerdict(group) +
                    fmt::format("; a loss through how often it runs, sped up "
                                "virtually (cross-check): {}{}",
                                measuredText, meaning);
    group.evidence.push_back(
        fmt::format("cross-check by virtual speedups (cross-check/report.md): "
                    "{}{}",
                    measuredText, meaning));
    return;
  }
  if (c.holdsMutex) {
    std::string meaning = takeMeasuredGains(group);
    group.verdict = replaceAdvice(
        group.verdict, fmt::format("; {}, sped up virtually (cross-check): "
                                   "{}{}",
                                   where, measuredText, meaning));
    group.evidence.push_back(
        fmt::format("cross-check by virtual speedups (cross-check/report.md): "
                    "{}{}",
                    measuredText, meaning));
    return;
  }
  bool slack = group.shape == Shape::Threshold || group.shape == Shape::None;
  std::string meaning =
      gain.ci.lo > 0
          ? std::string("a faster call saves hand-offs of the mutex: worth "
                        "speeding up") +
                (slack ? ", though slowing it down shows slack" : "")
      : gain.ci.hi < 0 ? "speeding it up would slow the program down"
                       : "no gain or loss shown (the interval holds 0)";
  group.verdict = replaceAdvice(
      group.verdict, fmt::format("; beside a contended mutex, sped up "
                                 "virtually (cross-check): {}, {}",
                                 measuredText, meaning));
  group.evidence.push_back(fmt::format(
      "cross-check by virtual speedups (cross-check/report.md): {}, {}",
      measuredText, meaning));
}

int runCrossCheck(const SweepState &main, SweepAnalysis &analysis,
                  double budgetLeftS) {
  std::vector<std::size_t> wanted;
  for (std::size_t i = 0; i < analysis.groups.size(); ++i)
    if (analysis.groups[i].crossCheck.wanted)
      wanted.push_back(i);
  if (wanted.empty())
    return 0;
  const SweepOptions &o = main.options;
  if (std::string blocker = crossCheckBlocker(o); !blocker.empty()) {
    for (std::size_t i : wanted) {
      analysis.groups[i].crossCheck.why = "not run: " + blocker;
      analysis.groups[i].verdict = replaceAdvice(
          analysis.groups[i].verdict, adviceWith(analysis.groups[i], blocker));
    }
    analysis.answer = answerOf(analysis.groups, analysis.ranking);
    return 0;
  }
  SweepState check;
  check.options = o;
  SweepOptions &c = check.options;
  c.outDir = o.outDir + "/cross-check";
  c.speedups = crossCheckPercents(o.analysis);
  c.delays.clear();
  c.autoDelays = false;
  // Five repeats to begin with, as a speedup sweep has: a gain is a
  // difference of two medians.
  c.repeats = std::max(o.repeats, 5u);
  // What is left of the budget, and at least a quarter of it: a sweep
  // whose speed-bump part spent it all (an answer that did not settle) is
  // the one that needs the cross-check most.
  c.budgetS = std::max(budgetLeftS, o.budgetS / 4);
  c.analysis.speedupsNs.clear();
  c.analysis.speedupPercents.clear();
  c.groups.clear();
  std::vector<std::string> names, files;
  for (std::size_t i : wanted) {
    c.groups.push_back(main.plan.groups[i]);
    names.push_back(main.plan.groups[i].name);
    files.push_back(main.plan.groups[i].file);
  }
  check.plan = makeSpeedupPlan(c.groups, c.speedups, c.repeats, c.seed);
  if (!o.quiet)
    fmt::print(stderr,
               "perfctl: cross-checking {} by virtual speedups (a lock's "
               "side that slowing down cannot see: a faster hand-off, or a "
               "bottleneck that moves off the mutex), into {}\n",
               fmt::join(names, ", "), c.outDir);
  int rc = runPlannedRuns(check, names, files);
  if (rc == 130)
    return rc;
  std::string error;
  if (rc != 0) {
    for (std::size_t i : wanted) {
      analysis.groups[i].crossCheck.why = "failed: " + check.error;
      analysis.groups[i].verdict =
          replaceAdvice(analysis.groups[i].verdict,
                        adviceWith(analysis.groups[i],
                                   "the cross-check failed: " + check.error));
    }
    analysis.answer = answerOf(analysis.groups, analysis.ranking);
    fmt::print(stderr, "perfctl: warning: the cross-check failed: {}\n",
               check.error);
    return 0;
  }
  warnIfMachineBusy(check);
  SpeedupAnalysis speedups = analyzeSpeedups(
      names, files, check.plan.speedups, speedupPointsOf(check), c.analysis);
  adviseUnsettled(check, speedups);
  std::string message;
  bool plotted = writeSpeedupPlot(check, speedups, message);
  if (!writeSweepJson(check, nullptr, error, &speedups) ||
      !writeSpeedupMarkdown(check, speedups, plotted, error))
    fmt::print(stderr, "perfctl: warning: the cross-check's files: {}\n",
               error);
  for (std::size_t k = 0; k < wanted.size(); ++k)
    applyCrossCheck(analysis.groups[wanted[k]], speedups.groups[k]);
  analysis.answer = answerOf(analysis.groups, analysis.ranking);
  return 0;
}

} // namespace perfcc::perfctl
