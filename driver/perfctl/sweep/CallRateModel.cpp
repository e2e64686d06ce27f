//===- CallRateModel.cpp - a loss that works through a call rate ---------===//
#include "sweep/CallRateModel.h"

#include "sweep/Plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfcc::perfctl {

namespace {

constexpr double Infinity = std::numeric_limits<double>::infinity();

/// The calls per unit must fall by at least this share from the unslowed
/// runs to the most slowed: less, and h rests on noise.
constexpr double MinCallsDrop = 0.1;

struct Fits {
  LinearFit harm, period;
};

Fits fit(const std::vector<CallRateRun> &runs, double confidence) {
  std::vector<double> r, t, x, q;
  for (const CallRateRun &run : runs) {
    r.push_back(run.callsPerUnit);
    t.push_back(run.timePerUnitNs);
    x.push_back(run.delayPerCallNs);
    q.push_back(run.timePerUnitNs / run.callsPerUnit);
  }
  return {fitLinear(r, t, confidence), fitLinear(x, q, confidence)};
}

double medianAtLevel(const std::vector<CallRateRun> &runs, std::size_t level) {
  std::vector<double> calls;
  for (const CallRateRun &run : runs)
    if (run.level == level)
      calls.push_back(run.callsPerUnit);
  return median(std::move(calls));
}

} // namespace

CallRateModel fitCallRateModel(std::vector<CallRateRun> runs,
                               double confidence) {
  CallRateModel m;
  bool complete = !runs.empty();
  std::size_t top = 0;
  for (const CallRateRun &run : runs) {
    complete &= run.callsPerUnit > 0 && run.timePerUnitNs > 0;
    top = std::max(top, run.level);
  }
  if (!complete || top < 2) {
    m.why = "needs the calls per unit of every run at three delays or more";
    return m;
  }
  m.runs = std::move(runs);
  Fits f = fit(m.runs, confidence);
  m.harm = f.harm;
  m.period = f.period;
  double unslowed = medianAtLevel(m.runs, 0);
  double slowed = medianAtLevel(m.runs, top);
  if (!(slowed <= (1 - MinCallsDrop) * unslowed)) {
    m.why = fmt::format("its calls per unit of work hardly fell as it was "
                        "slowed ({:.3g} to {:.3g})",
                        unslowed, slowed);
    return m;
  }
  if (!m.harm.ok || !(m.harm.slopeCI.lo > 0)) {
    m.why = fmt::format("the time per unit did not rise with its calls per "
                        "unit (each call's cost to the rest {} [{}, {}])",
                        formatDuration(m.harm.slope),
                        formatDuration(m.harm.slopeCI.lo),
                        formatDuration(m.harm.slopeCI.hi));
    return m;
  }
  if (!m.period.ok || !(m.period.slope > 0)) {
    m.why = "the time between its calls did not grow with the delay";
    return m;
  }
  m.applies = true;
  m.why = fmt::format(
      "its calls per unit of work fell from {:.3g} to {:.3g} as it was "
      "slowed, and each call costs the rest of the program {} [{}, {}] a "
      "unit (time per unit = {} + that x calls per unit); a call every {} "
      "(+{:.2f} ns per ns of delay): the loss is modelled through how often "
      "it runs",
      unslowed, slowed, formatDuration(m.harm.slope),
      formatDuration(m.harm.slopeCI.lo), formatDuration(m.harm.slopeCI.hi),
      formatDuration(m.harm.intercept), formatDuration(m.period.intercept),
      m.period.slope);
  return m;
}

double callRateTimeRatio(const LinearFit &harm, const LinearFit &period,
                         double savedNs) {
  double h = harm.slope, tc = harm.intercept;
  double q0 = period.intercept, q = q0 - period.slope * savedNs;
  // T = Tc / (1 - h / Q): past Q <= h each unit would take forever.
  if (!(q > h) || !(q0 > h))
    return Infinity;
  double now = tc / (1 - h / q0), then = tc / (1 - h / q);
  return now > 0 && then > 0 ? then / now : Infinity;
}

CallRateGain callRateGain(const CallRateModel &model, double savedNs,
                          double confidence, unsigned resamples, Rng &rng) {
  auto gain = [savedNs](const LinearFit &harm, const LinearFit &period) {
    double ratio = callRateTimeRatio(harm, period, savedNs);
    return std::isfinite(ratio) ? 100 * (1 / ratio - 1) : -100.0;
  };
  CallRateGain g;
  g.value = gain(model.harm, model.period);
  // Resample within each level, so every resample keeps the design.
  std::vector<std::vector<const CallRateRun *>> byLevel;
  for (const CallRateRun &run : model.runs) {
    if (run.level >= byLevel.size())
      byLevel.resize(run.level + 1);
    byLevel[run.level].push_back(&run);
  }
  std::vector<double> gains;
  std::vector<CallRateRun> resample;
  for (unsigned b = 0; b < resamples; ++b) {
    resample.clear();
    for (const auto &level : byLevel)
      for (std::size_t i = 0; i < level.size(); ++i)
        resample.push_back(*level[uniformIndex(rng, level.size())]);
    Fits f = fit(resample, confidence);
    if (f.harm.ok && f.period.ok)
      gains.push_back(gain(f.harm, f.period));
  }
  g.ci = percentileInterval(std::move(gains), confidence);
  return g;
}

} // namespace perfcc::perfctl
