//===- Analysis.cpp - what a virtual-speedup sweep says -------------------===//
#include "speedup/Analysis.h"

#include "sweep/GroupRanking.h"

#include "sweep/Plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfcc::perfctl {

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> column(const std::vector<SpeedupPoint> &points,
                           double SpeedupPoint::*field) {
  std::vector<double> values;
  for (const SpeedupPoint &p : points)
    values.push_back(p.*field);
  return values;
}

std::vector<double> timesPerUnit(const std::vector<double> &rates) {
  std::vector<double> times;
  for (double rate : rates)
    times.push_back(rate > 0 ? 1e9 / rate : NaN);
  return times;
}

/// The slope at small P, in throughput % per 1%, from a gain of \p gain %
/// at \p percent: the share of the time per unit of work saved, per point.
double slopeOf(double gain, unsigned percent) {
  return 100 * (gain / (100 + gain)) / double(percent);
}

std::string interval(const Estimate &e) {
  return fmt::format("{} [{}, {}]", formatGain(e.value), formatGain(e.ci.lo),
                     formatGain(e.ci.hi));
}

} // namespace

double speedupGain(double rate, double baselineRate, unsigned percent,
                   unsigned baselinePercent, double referenceTimeNs) {
  if (!(baselineRate > 0) || percent <= baselinePercent)
    return NaN;
  double scale = double(percent) / double(percent - baselinePercent);
  if (!(referenceTimeNs > 0))
    return 100 * (rate / baselineRate - 1) * scale;
  if (!(rate > 0))
    return NaN;
  double saved = (1e9 / baselineRate - 1e9 / rate) * scale;
  return saved < referenceTimeNs
             ? 100 * (referenceTimeNs / (referenceTimeNs - saved) - 1)
             : NaN;
}

SpeedupSettled isSettled(const SpeedupGroup &group, double targetWidth) {
  SpeedupSettled s;
  if (!group.valid) {
    s.settled = true;
    s.why = "invalid: more runs cannot change that";
    return s;
  }
  const Estimate &h = group.headline;
  if (!std::isfinite(h.value) || !std::isfinite(h.ci.lo) ||
      !std::isfinite(h.ci.hi)) {
    s.why = fmt::format("no interval at {}% yet", group.headlinePercent);
    return s;
  }
  double width = h.ci.hi - h.ci.lo;
  double allowed =
      std::max(SpeedupSettledPoints, targetWidth * std::abs(h.value));
  s.settled = width <= allowed;
  s.why = fmt::format("the gain at {}% is {} [{}, {}], {:.1f} points wide "
                      "({} {:.1f})",
                      group.headlinePercent, formatGain(h.value),
                      formatGain(h.ci.lo), formatGain(h.ci.hi), width,
                      s.settled ? "at most" : "above", allowed);
  return s;
}

std::string formatGain(double percent) {
  if (!std::isfinite(percent))
    return "n/a";
  double rounded = std::round(percent);
  return fmt::format("{:+.0f}%", rounded == 0 ? 0.0 : rounded);
}

SpeedupAnalysis analyzeSpeedups(const std::vector<std::string> &names,
                                const std::vector<std::string> &files,
                                const std::vector<unsigned> &percents,
                                const std::vector<SpeedupPoint> &points,
                                const AnalysisSettings &settings) {
  SpeedupAnalysis a;
  a.percents = percents;
  Rng rng(settings.seed ^ 0x5bd1e9955bd1e995ull);
  double conf = settings.confidence;
  unsigned B = settings.resamples;
  int level = int(std::lround(conf * 100));
  unsigned baseline = percents.empty() ? BaselinePercent : percents.front();

  std::vector<SpeedupPoint> unarmed;
  for (const SpeedupPoint &p : points)
    if (p.group < 0)
      unarmed.push_back(p);
  std::vector<double> unarmedTimes =
      timesPerUnit(column(unarmed, &SpeedupPoint::throughput));
  a.unarmedThroughput =
      summarize(column(unarmed, &SpeedupPoint::throughput), conf, B, rng);
  a.noisePercent = 100 * summarize(unarmedTimes, conf, B, rng).robustCV();

  for (std::size_t gi = 0; gi < names.size(); ++gi) {
    SpeedupGroup g;
    g.name = names[gi];
    g.file = files[gi];
    std::vector<double> baseRates, baseReal, x, y;
    for (unsigned percent : percents) {
      std::vector<SpeedupPoint> runs;
      for (const SpeedupPoint &p : points)
        if (p.group == int(gi) && p.percent == percent)
          runs.push_back(p);
      if (runs.empty())
        continue;
      for (const SpeedupPoint &p : runs) {
        if (!p.valid && g.valid) {
          g.valid = false;
          g.reason =
              p.reason.empty() ? "the runtime marked it invalid" : p.reason;
        }
        x.push_back(double(percent));
        y.push_back(1e9 / p.virtualThroughput);
      }
      SpeedupLevel l;
      l.percent = percent;
      std::vector<double> rates =
          column(runs, &SpeedupPoint::virtualThroughput);
      l.virtualThroughput = summarize(rates, conf, B, rng);
      l.throughput =
          summarize(column(runs, &SpeedupPoint::throughput), conf, B, rng);
      l.gainPercent = {NaN, {NaN, NaN}};
      if (percent == baseline) {
        baseRates = rates;
        baseReal = column(runs, &SpeedupPoint::throughput);
        g.noisePercent =
            100 * summarize(timesPerUnit(rates), conf, B, rng).robustCV();
      } else if (!baseRates.empty()) {
        // Against the program run without the experiment: arming (probes,
        // lock bookkeeping) adds time no speedup removes, and shrinks every
        // gain measured against the armed baseline.
        double reference = unarmedTimes.empty() ? NaN : median(unarmedTimes);
        auto gain = [percent, baseline,
                     reference](const std::vector<double> &here,
                                const std::vector<double> &base) {
          return speedupGain(median(here), median(base), percent, baseline,
                             reference);
        };
        l.gainPercent = {
            gain(rates, baseRates),
            bootstrapInterval2(rates, baseRates, gain, conf, B, rng)};
        if (!g.slopeToPercent) {
          g.slopeToPercent = percent;
          g.slope = {slopeOf(l.gainPercent.value, percent),
                     {slopeOf(l.gainPercent.ci.lo, percent),
                      slopeOf(l.gainPercent.ci.hi, percent)}};
        }
      }
      g.levels.push_back(l);
    }
    if (baseReal.empty() || unarmedTimes.empty()) {
      g.overheadPercent = {NaN, {NaN, NaN}};
    } else {
      auto overhead = [](const std::vector<double> &armed,
                         const std::vector<double> &plain) {
        return 100 * (median(armed) / median(plain) - 1);
      };
      std::vector<double> armedTimes = timesPerUnit(baseReal);
      g.overheadPercent = {
          overhead(armedTimes, unarmedTimes),
          bootstrapInterval2(armedTimes, unarmedTimes, overhead, conf, B, rng)};
    }
    g.line = fitLinear(x, y, conf);
    if (!g.levels.empty()) {
      g.headlinePercent = g.levels.back().percent;
      g.headline = g.levels.back().gainPercent;
    }

    if (!baseRates.empty())
      g.evidence.push_back(fmt::format(
          "baseline: the targets {}% faster (the speedup machinery armed as "
          "in every run), virtual throughput {:.4g}/s; each gain is the "
          "change from there to P%, scaled by P/(P-{}) to the whole P%",
          baseline, median(baseRates), baseline));
    if (g.slopeToPercent)
      g.evidence.push_back(fmt::format(
          "slope at small P: {:+.2f}% throughput per 1% faster, {}% CI "
          "[{:+.2f}, {:+.2f}] (from {}% to {}%), the share of the time per "
          "unit of work the targets hold on the critical path (1: all of "
          "it, 0: none)",
          g.slope.value, level, g.slope.ci.lo, g.slope.ci.hi, baseline,
          g.slopeToPercent));
    if (g.line.ok && g.line.intercept > 0)
      g.evidence.push_back(fmt::format(
          "line: effective time per unit of work = {} {:+.4g} ns x P "
          "(percent), "
          "R^2 {:.3f}; at P = 0 its slope is {:+.2f}% per 1% [{:+.2f}, "
          "{:+.2f}] (OLS, HC3 errors)",
          formatDuration(g.line.intercept), g.line.slope, g.line.r2,
          -100 * g.line.slope / g.line.intercept,
          -100 * g.line.slopeCI.hi / g.line.intercept,
          -100 * g.line.slopeCI.lo / g.line.intercept));
    g.evidence.push_back(fmt::format(
        "run-to-run noise {:.1f}% (baseline runs); the baseline's real time "
        "per unit against the unarmed control: {:+.1f}% [{:+.1f}%, {:+.1f}%]",
        g.noisePercent, g.overheadPercent.value, g.overheadPercent.ci.lo,
        g.overheadPercent.ci.hi));
    if (!g.valid) {
      g.evidence.push_back("invalid: " + g.reason);
      g.verdict = "invalid: " + g.reason;
    } else if (std::isfinite(g.headline.value)) {
      g.verdict = fmt::format("{} if {}% faster", interval(g.headline),
                              g.headlinePercent);
      // A loss the interval is sure of is said in words, not left to a
      // minus sign.
      if (g.headline.ci.hi < 0)
        g.verdict += ": a loss, speeding it up would slow the program down";
    } else {
      g.verdict = "no estimate (no runs at a requested speedup)";
    }
    a.groups.push_back(std::move(g));
  }

  // Largest predicted gain first; invalid and unestimated groups last.
  auto rank = [](const SpeedupGroup &g) {
    bool usable = g.valid && std::isfinite(g.headline.value);
    return std::make_pair(usable ? 0 : 1, usable ? -g.headline.value : 0.0);
  };
  rankGroups(a.groups, rank, a.ranking, a.answer);
  return a;
}

} // namespace perfcc::perfctl
