//===- Analysis.cpp - what a sweep's runs say -----------------------------===//
#include "sweep/Analysis.h"

#include "sweep/GroupRanking.h"

#include "sweep/Plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfcc::perfctl {

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// "p = 0.034", or "p < 0.001" when no resample reached the statistic.
std::string pText(double p, unsigned resamples) {
  if (p <= 1.0 / (1.0 + resamples) * (1 + 1e-9))
    return fmt::format("p < {:.2g}", 1.5 / (1.0 + resamples));
  return fmt::format("p = {:.3f}", p);
}

std::string ratio(const Estimate &e) {
  return fmt::format("{:.2f} [{:.2f}, {:.2f}]", e.value, e.ci.lo, e.ci.hi);
}

/// The median of the runs' CPU-wait shares the kernel reported; -1 when it
/// reported none.
double knownCpuWaitShare(const std::vector<RunPoint> &runs) {
  std::vector<double> known;
  for (const RunPoint &p : runs)
    if (p.cpuWaitShare >= 0)
      known.push_back(p.cpuWaitShare);
  return known.empty() ? -1 : median(known);
}

double medianOf(const std::vector<RunPoint> &points, double RunPoint::*field) {
  std::vector<double> values;
  for (const RunPoint &p : points)
    values.push_back(p.*field);
  return median(std::move(values));
}

std::vector<double> column(const std::vector<RunPoint> &points,
                           double RunPoint::*field) {
  std::vector<double> values;
  for (const RunPoint &p : points)
    values.push_back(p.*field);
  return values;
}

double ratioOfMedians(const std::vector<double> &a,
                      const std::vector<double> &b) {
  return median(a) / median(b);
}

/// A lock has sides that slowing a function down cannot show (sweep/
/// CrossCheck.h), where the threads waited for mutexes:
/// - beside the mutex: a faster call is back sooner, its thread takes the
///   mutex again before the waiter it woke runs, and saves a hand-off
///   (glibc's mutex lets a running thread barge in), so a slack verdict, or
///   a small part of the path (sub-linear), may be wrong (examples/causal/
///   lock_convoy.cpp's prepare_local gains 2-18% so);
/// - holding it: time per unit of work is the largest of what its resources
///   ask (the mutex's critical sections, each thread's own work, the
///   hand-offs), a convex function of any one function's time, so a line
///   through the slow-downs carried to the speed-up side misses the point
///   where the mutex stops being the bottleneck and overstates the gain
///   (lock_convoy's update_shared: +81% extrapolated at 50% against a real
///   +55%); its gains are the most a faster call could give.
/// Either way: say so, and measure the speed-up side (docs/methodology.md).
void cautionNearAContendedMutex(GroupAnalysis &g) {
  if (!(g.mutexWaitShare >= ContendedMutexShare))
    return;
  bool slack = g.shape == Shape::Threshold || g.shape == Shape::None ||
               g.shape == Shape::Inconclusive;
  bool gain = g.shape == Shape::Linear || g.shape == Shape::SubLinear;
  bool holds = g.heldShare >= HeldMutexShare;
  if (gain && holds) {
    g.evidence.push_back(fmt::format(
        "holds a contended mutex: {:.0f}% of its own work is done holding "
        "one the threads waited for {:.0f}% of the run (summed over threads); "
        "a shorter critical section can move the bottleneck to the threads' "
        "own work, which slowing it down cannot show, so the gains "
        "extrapolated from the line are the most a faster call could give: "
        "cross-check with --speedup",
        100 * g.heldShare, 100 * g.mutexWaitShare));
    g.verdict += HeldMutexCrossCheckAdvice;
    g.crossCheck.holdsMutex = true;
  } else if (slack || g.shape == Shape::SubLinear) {
    g.evidence.push_back(fmt::format(
        "beside a contended mutex: the threads waited for one {:.0f}% of the "
        "run (summed over threads); a faster call can take the mutex back "
        "before the waiter it woke runs and save a hand-off, a gain slowing "
        "it down cannot show: cross-check with --speedup",
        100 * g.mutexWaitShare));
    g.verdict += CrossCheckAdvice;
  } else {
    return;
  }
  g.crossCheck.wanted = true;
}

/// A loss through a call rate is carried to the speed-up side by a model
/// that holds each call's harm fixed: the most it would lose, where the line
/// through the slow-downs says the least. Where the harm saturates as the
/// calls come faster (a fair lock, which the faster caller cannot take twice
/// while the worker waits; contention.cpp's poll_stats at 50%: -18.6% by
/// the model, -11.7% real, 2026-11-29), the truth lies between them, and
/// only the speed-up side shows where: measure it.
void crossCheckALossThroughACallRate(GroupAnalysis &g) {
  if (g.shape != Shape::Negative || !g.callRate.applies || g.crossCheck.wanted)
    return;
  bool modelled = std::any_of(
      g.extrapolations.begin(), g.extrapolations.end(),
      [](const Extrapolation &e) { return e.valid && e.byCallRate; });
  if (!modelled)
    return;
  g.verdict += CallRateCrossCheckAdvice;
  g.crossCheck.wanted = true;
  g.crossCheck.callRate = true;
}

/// A spinning delay models a slower function only while the threads beside
/// it keep their CPUs: where they took turns for one during the delayed
/// runs and not without delay, each delay also took a CPU from them, and a
/// slope says as much about the machine as about the program. A line (or a
/// partial one) is then not evidence of the critical path; a threshold or
/// none still is evidence of slack (taking turns can only hide it, so
/// their slack is the least there is); other shapes get the fact alone.
void distrustASlopeFromTakingTurns(GroupAnalysis &g) {
  if (!g.tookTurns)
    return;
  std::string waited = fmt::format(
      "its threads took turns for a CPU while it was delayed: some thread was "
      "ready to run with no CPU to run on {:.0f}% of the time in its delayed "
      "runs, against {:.0f}% without delay (/proc/pressure/cpu)",
      100 * g.cpuWaitShareDelayed, 100 * g.cpuWaitShareUndelayed);
  if (g.shape == Shape::Linear || g.shape == Shape::SubLinear) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back(
        "inconclusive: " + waited +
        "; each spinning delay then took a CPU from the threads beside it, "
        "so the slope may be the machine's (a scheduler that stacked the "
        "threads on fewer CPUs, or a load perfctl could not see) and slack "
        "beside them would not show; rerun on a quiet machine");
  } else if (g.shape == Shape::Threshold || g.shape == Shape::None) {
    g.evidence.push_back(waited + "; slack beside them may be larger than "
                                  "it reads");
  } else {
    g.evidence.push_back(waited);
  }
}

} // namespace

std::string callRateNote(double lineGainPercent) {
  return fmt::format("through how often it runs, each call's cost to the "
                     "rest held fixed (the most it would lose); a line "
                     "through the slow-downs says {:+.1f}% (the least)",
                     lineGainPercent);
}

std::string negativeVerdict(const GroupAnalysis &g) {
  double loss = g.extrapolations.empty()
                    ? NaN
                    : g.extrapolations.back().gainPercent.value;
  return fmt::format(
      "speeding it up would slow the program down (negative), "
      "pass-through {}{}",
      ratio(g.passThrough),
      std::isnan(loss)
          ? ""
          : fmt::format("; {:+.1f}% throughput at {} faster per call", loss,
                        formatDuration(g.extrapolations.back().usedNs)));
}

const char *const CallRateCrossCheckAdvice =
    "; a loss through how often it runs, which slowing down sees from one "
    "side: the line (the least) and the call-rate model (the most) bracket "
    "it, cross-check with --speedup";

const char *const CrossCheckAdvice =
    "; beside a contended mutex, where slowing down cannot see a faster "
    "hand-off: cross-check with --speedup";

const char *const HeldMutexCrossCheckAdvice =
    "; holds a contended mutex, where a shorter critical section can move the "
    "bottleneck: the gains extrapolated are the most it could give, "
    "cross-check with --speedup";

const char *slopeSourceName(SlopeSource source) {
  switch (source) {
  case SlopeSource::Line:
    return "line";
  case SlopeSource::BeforeKnee:
    return "before_knee";
  case SlopeSource::NearNoDelay:
    return "near_no_delay";
  }
  return "?";
}

const char *shapeName(Shape shape) {
  switch (shape) {
  case Shape::None:
    return "none";
  case Shape::Linear:
    return "linear";
  case Shape::SubLinear:
    return "sub-linear";
  case Shape::Threshold:
    return "threshold";
  case Shape::Negative:
    return "negative";
  case Shape::Inconclusive:
    return "inconclusive";
  }
  return "?";
}

void classify(GroupAnalysis &g, const AnalysisSettings &settings) {
  const LinearFit &line = g.line;
  double alpha = 1 - settings.confidence;
  int percent = int(std::lround(settings.confidence * 100));
  g.evidence.clear();
  g.passThrough = {line.slope, line.slopeCI};
  g.slopeSource = SlopeSource::Line;
  if (!line.ok || g.levels.size() < 2) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back("too few runs to fit: a line needs at least three "
                         "runs over two delays");
    return;
  }
  double y0 = g.levels.front().timePerUnitNs.median;
  double xMax = 0;
  for (const LevelStats &level : g.levels)
    xMax = std::max(xMax, level.delayPerUnitNs);
  double lo = line.slopeCI.lo, hi = line.slopeCI.hi;
  g.evidence.push_back(fmt::format(
      "line: time per unit of work = {} + {:.3f} x delay per unit; slope "
      "(pass-through) {:.3f}, {}% CI [{:.3f}, {:.3f}] (OLS, HC3 errors, t with "
      "{} df), R^2 {:.3f}",
      formatDuration(line.intercept), line.slope, line.slope, percent, lo, hi,
      line.n - 2, line.r2));
  g.evidence.push_back(fmt::format(
      "largest delay: {} per unit of work, {:.1f}% of the baseline time per "
      "unit ({}); the line puts its effect at {:+.1f}%, at most {:+.1f}%; "
      "run-to-run noise {:.1f}%",
      formatDuration(xMax), 100 * xMax / y0, formatDuration(y0),
      100 * line.slope * xMax / y0, 100 * hi * xMax / y0, g.noisePercent));

  // The function's own work per unit, as a share of the time per unit:
  // what a slope is worth (0 when the runtime did not say).
  double perCall =
      g.targetWorkNsPerCall > 0 ? g.targetWorkNsPerCall : g.targetNsPerCall;
  double share = g.callsPerUnit > 0 && perCall > 0 && y0 > 0
                     ? g.callsPerUnit * perCall / y0
                     : 0;
  const HingeTest &h = g.hinge;
  double firstDelay = g.levels.size() > 1 ? g.levels[1].delayPerUnitNs : 0;
  if (h.ok)
    g.evidence.push_back(fmt::format(
        "hinge: flat to a knee at {} per unit of work ({}% CI [{}, {}]), then "
        "slope {:.3f} [{:.3f}, {:.3f}]; against the line F = {:.2f}, {} "
        "(wild bootstrap)",
        formatDuration(h.fit.knee), percent, formatDuration(h.kneeCI.lo),
        formatDuration(h.kneeCI.hi), h.fit.slope, h.slopeCI.lo, h.slopeCI.hi,
        h.fStatistic, pText(h.pValue, settings.resamples)));
  else
    g.evidence.push_back("hinge: not tried (needs three delay levels)");

  // A threshold: the hinge beats the line (at the level corrected for the
  // number of groups tested), something rises past the knee, at least one
  // nonzero delay sits on the flat stretch (a knee below the smallest delay
  // is a line with a little slack, not a threshold) and at least two past
  // it (one point past a knee is a rise that noise can make).
  double hingeAlpha = g.hingeAlpha >= 0 ? g.hingeAlpha : alpha;
  int pastKnee = 0;
  for (const LevelStats &level : g.levels)
    pastKnee += h.ok && level.delayPerUnitNs > h.fit.knee;
  bool shaped = h.ok && h.fit.slope > 0 && h.slopeCI.lo > 0 &&
                h.fit.knee >= 0.999 * firstDelay;
  // Neither shape is safe to claim when the hinge is significant alone but
  // not after the correction, or has too few points past its knee: "linear"
  // would deny slack the data hint at, "threshold" would claim one that
  // noise can make.
  if (shaped && h.pValue < alpha && h.pValue >= hingeAlpha) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back(fmt::format(
        "inconclusive: a knee at {} per unit of work may be there: {} is below "
        "{:.2f} but not below {:.4f}, the level Holm's correction sets for "
        "this test among the {} groups' (with several groups, one would pass "
        "by chance too often); more repeats will tell",
        formatDuration(h.fit.knee), pText(h.pValue, settings.resamples), alpha,
        hingeAlpha, g.hingeTests));
    return;
  }
  bool significant = shaped && h.pValue < hingeAlpha;
  if (significant && pastKnee < 2) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back(fmt::format(
        "inconclusive: a knee at {} per unit of work, but only {} delay past "
        "the knee: a threshold needs two to show the rise; add a larger delay",
        formatDuration(h.fit.knee), pastKnee));
    return;
  }
  // Flat before the knee: noise in the few runs there can fake a flat
  // stretch (a baseline that came out slow, a first delay that came out
  // fast) under a curve that rises from the start.
  bool flat = g.flatPart.ok && g.flatPart.slopeCI.hi < settings.flatCeiling;
  if (significant && !flat) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back(fmt::format(
        "inconclusive: a knee at {} per unit of work, but the stretch before "
        "it is not shown flat: {}; more repeats will tell",
        formatDuration(h.fit.knee),
        g.flatPart.ok
            ? fmt::format("its slope's CI reaches {:.2f} (a flat stretch stays "
                          "below {:.2f})",
                          g.flatPart.slopeCI.hi, settings.flatCeiling)
            : std::string("too few runs on it to fit a slope")));
    return;
  }
  if (significant) {
    g.shape = Shape::Threshold;
    g.passThrough = {h.fit.slope, h.slopeCI};
    g.slackNsPerCall = g.callsPerUnit > 0 ? h.fit.knee / g.callsPerUnit : NaN;
    g.evidence.push_back(fmt::format(
        "threshold: the hinge fits significantly better ({}, below {:.4g}); "
        "slack {} per unit of work, {} per call",
        pText(h.pValue, settings.resamples), hingeAlpha,
        formatDuration(h.fit.knee), formatDuration(g.slackNsPerCall)));
    // A soft knee: the stretch before it rises too (its slope's interval
    // above 0 and below the slope past the knee, and worth the material
    // effect over the function's share of the time per unit). Two joined
    // threads, or a producer ahead of its consumer, cost a little before
    // the knee (the rounds or the queue's gaps where the slowed side
    // happens to be the longer one), but a speedup moves away from the
    // knee, where such programs' real variants gained about nothing: no
    // gain is still the answer, and what the stretch loses is the most.
    const LinearFit &before = g.flatPart;
    if (before.ok && before.slopeCI.lo > 0 &&
        before.slope * share >= settings.materialEffect &&
        before.slopeCI.hi < h.slopeCI.lo) {
      g.slopeSource = SlopeSource::BeforeKnee;
      g.evidence.push_back(fmt::format(
          "a soft knee: before it the time rises too, at slope {:.3f}, {}% CI "
          "[{:.3f}, {:.3f}]; a speedup moves away from the knee and gains at "
          "most what that stretch loses",
          before.slope, percent, before.slopeCI.lo, before.slopeCI.hi));
    }
    return;
  }
  if (hi - lo > settings.maxWidth) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back(fmt::format(
        "inconclusive: the slope's CI is {:.2f} wide (more than {:.2f}): "
        "{:.1f}% noise swamps delays of {:.1f}% of the time per unit; use "
        "larger delays or more repeats",
        hi - lo, settings.maxWidth, g.noisePercent, 100 * xMax / y0));
    return;
  }
  // Below zero, narrow enough to trust (a wide interval that misses 0 is
  // what noise gives one time in twenty) and material: a pass-through of at
  // least the none ceiling below 0, or one that, over the function's share
  // of the time, is worth the material effect (a flat curve's interval
  // misses 0 by a little now and then; that is "none", not a loss).
  if (hi < 0 && (line.slope <= -settings.noneCeiling ||
                 -line.slope * share >= settings.materialEffect)) {
    g.shape = Shape::Negative;
    g.evidence.push_back(fmt::format(
        "negative: the slope's CI lies below 0 (up to {:.2f}){}: slowing "
        "this function makes the program faster (it competes with the "
        "critical path, for a lock, a core or work it makes for others), so "
        "speeding it up would slow the program down",
        hi,
        line.slope > -settings.noneCeiling
            ? fmt::format("; small, but over the function's {:.0f}% of the "
                          "time per unit worth {:.1f}% if it took no time",
                          100 * share, -100 * line.slope * share)
            : std::string()));
    return;
  }
  // A curve that steepens with delay: the runs at the smaller delays show a
  // slope whose interval lies below the line's, so the line through every
  // delay takes its slope mostly from the larger ones, and would promise
  // more than a speedup (which starts from no delay) gives. The stretch
  // near no delay is then the answer, a wider but unbiased one. (On a curve
  // that is a line, that stretch has the line's slope, and this happens
  // only as often as an interval misses the truth.)
  const LinearFit &near = g.nearPart;
  if (lo > 0 && near.ok && near.n < line.n && near.slopeCI.hi < line.slope) {
    g.slopeSource = SlopeSource::NearNoDelay;
    g.passThrough = {near.slope, near.slopeCI};
    std::string steepens = fmt::format(
        "the curve steepens with delay: up to {} per unit of work the slope "
        "is {:.3f}, {}% CI [{:.3f}, {:.3f}], below the line's {:.3f}",
        formatDuration(g.nearPartUpToNs), near.slope, percent, near.slopeCI.lo,
        near.slopeCI.hi, line.slope);
    if (near.slopeCI.lo > 0) {
      g.shape = near.slopeCI.hi >= settings.linearFloor ? Shape::Linear
                                                        : Shape::SubLinear;
      g.evidence.push_back(fmt::format(
          "{}: {}; a speedup starts from no delay, so the pass-through and "
          "the speedups predicted are that stretch's",
          shapeName(g.shape), steepens));
    } else {
      g.shape = Shape::Inconclusive;
      g.evidence.push_back(fmt::format(
          "inconclusive: {}, and cannot be told from 0 there: the line "
          "through every delay would promise a speedup the stretch near no "
          "delay does not show; more repeats will tell",
          steepens));
    }
    return;
  }
  if (lo > 0) {
    g.shape = hi >= settings.linearFloor ? Shape::Linear : Shape::SubLinear;
    g.evidence.push_back(
        g.shape == Shape::Linear
            ? fmt::format("linear: the slope's CI excludes 0 and reaches "
                          "{:.2f} (the hinge is no better)",
                          settings.linearFloor)
            : fmt::format("sub-linear: the slope's CI lies between 0 and "
                          "{:.2f}: part of each delay is hidden",
                          settings.linearFloor));
    return;
  }
  // None needs the interval near 0 on both sides: one that reaches well
  // below 0 leaves open that speeding the function up would hurt.
  if (hi < settings.noneCeiling && lo > -settings.noneCeiling) {
    g.shape = Shape::None;
    g.evidence.push_back(fmt::format(
        "none: the slope's CI {} and stays within +-{:.2f}{}",
        lo <= 0 && hi >= 0 ? "includes 0" : "lies near 0", settings.noneCeiling,
        share > 0 ? fmt::format("; the function taking no time at all would "
                                "change the time per unit by {:.1f}% at most",
                                100 * std::max(-lo, hi) * share)
                  : std::string()));
    return;
  }
  if (hi < settings.noneCeiling) {
    g.shape = Shape::Inconclusive;
    g.evidence.push_back(fmt::format(
        "inconclusive: the slope's CI includes 0 but reaches down to {:.2f}: "
        "speeding the function up may cost throughput; use larger delays or "
        "more repeats",
        lo));
    return;
  }
  g.shape = Shape::Inconclusive;
  g.evidence.push_back(fmt::format(
      "inconclusive: the slope's CI includes 0 but also pass-through up to "
      "{:.2f}; use larger delays or more repeats",
      hi));
}

std::vector<double> holmLevels(const std::vector<double> &pValues,
                               double alpha) {
  std::vector<std::size_t> order(pValues.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(
      order.begin(), order.end(),
      [&](std::size_t a, std::size_t b) { return pValues[a] < pValues[b]; });
  std::vector<double> levels(pValues.size(), 0.0);
  std::size_t m = pValues.size();
  for (std::size_t rank = 0; rank < m; ++rank) {
    std::size_t i = order[rank];
    levels[i] = alpha / double(m - rank);
    if (!(pValues[i] < levels[i]))
      break; // step-down: every larger p-value fails too (level 0)
  }
  return levels;
}

void extrapolate(GroupAnalysis &g, const AnalysisSettings &settings,
                 const std::vector<std::uint64_t> &delays) {
  // Never past what was measured: not beyond the largest delay tried, and
  // not beyond the function's own time per call (it cannot take less than
  // nothing).
  double cap = delays.empty() ? 0 : double(delays.back());
  if (g.targetNsPerCall > 0)
    cap = std::min(cap, g.targetNsPerCall);
  // What is asked: per-call speedups in ns, and in percent of a call's own
  // work, which a real P% faster function saves (the time it sat blocked
  // on another thread is that thread's).
  struct Asked {
    std::uint64_t ns;
    unsigned percent;
  };
  std::vector<Asked> asked;
  for (std::uint64_t ns : settings.speedupsNs)
    asked.push_back({ns, 0});
  double perCall =
      g.targetWorkNsPerCall > 0 ? g.targetWorkNsPerCall : g.targetNsPerCall;
  for (unsigned p : settings.speedupPercents)
    asked.push_back(
        {perCall > 0 ? std::uint64_t(std::llround(perCall * p / 100.0)) : 0,
         p});
  if (asked.empty()) {
    for (std::uint64_t delay : delays)
      if (delay && double(delay) <= cap)
        asked.push_back({delay, 0});
    if (asked.empty() && cap >= 1)
      asked.push_back({std::uint64_t(cap), 0});
  }
  // The gain is the real program's, run without the experiment: the time
  // saved (measured on armed runs, as a slope it does not depend on the
  // arming's constant cost) against the unarmed time per unit. Against the
  // armed baseline, whose probes and lock bookkeeping add time that no
  // speedup of the function removes, every gain would come out too small.
  double y0 = g.unarmedTimePerUnitNs > 0 ? g.unarmedTimePerUnitNs
              : g.levels.empty()         ? NaN
                                 : g.levels.front().timePerUnitNs.median;
  g.extrapolations.clear();
  double conf = settings.confidence;
  Rng rng(settings.seed ^ 0x6a09e667f3bcc909ull);
  for (const Asked &a : asked) {
    std::uint64_t s = a.ns;
    Extrapolation e;
    e.speedupNs = s;
    e.percent = a.percent;
    e.usedNs = std::min(double(s), cap);
    e.capped = double(s) > cap;
    e.valid = true;
    e.gainPercent = {0, {0, 0}};
    if (a.percent && !(perCall > 0)) {
      e.valid = false;
      e.note = "no estimate: the targets' time per call is unknown";
      g.extrapolations.push_back(e);
      continue;
    }
    switch (g.shape) {
    case Shape::None:
      e.note = "off the critical path: no gain";
      break;
    case Shape::Threshold:
      e.note = fmt::format("{} of slack per call: no gain until it is the "
                           "bottleneck",
                           formatDuration(g.slackNsPerCall));
      if (g.slopeSource == SlopeSource::BeforeKnee && g.callsPerUnit > 0) {
        // A soft knee: at most what the stretch before it loses.
        double saved = g.flatPart.slopeCI.hi * e.usedNs * g.callsPerUnit;
        e.gainPercent.ci.hi = saved < y0 ? 100 * (y0 / (y0 - saved) - 1) : NaN;
        e.note += fmt::format("; at most {:+.1f}%, what the rise before its "
                              "knee loses (a soft knee)",
                              e.gainPercent.ci.hi);
      }
      break;
    case Shape::Inconclusive:
      e.valid = false;
      e.note = "no estimate: the curve is inconclusive";
      break;
    case Shape::Linear:
    case Shape::SubLinear:
    case Shape::Negative: {
      if (!(g.callsPerUnit > 0)) {
        e.valid = false;
        e.note = "no estimate: the runtime reported no delayed calls";
        break;
      }
      // The time saved per unit of work is also capped by the slack
      // another group showed (a threshold): once this path is that much
      // shorter, the other one is the bottleneck.
      // The knee caps the point and the lower end (at the low end of its
      // own interval). It is a lower bound of the real slack: the other
      // group's delays spin, and a spinning thread takes a core the
      // bottleneck could have used (on a busy machine most of all), so it
      // never caps the upper end, which stays the line's.
      bool slackCapped = false;
      auto gain = [&](double slope, double cap) {
        double saved = slope * e.usedNs * g.callsPerUnit;
        if (saved > cap) {
          saved = cap;
          slackCapped = true;
        }
        return saved < y0 ? 100 * (y0 / (y0 - saved) - 1) : NaN;
      };
      double inf = std::numeric_limits<double>::infinity();
      // A speedup starts from no delay: where the curve steepens, from the
      // stretch nearest it.
      bool near = g.slopeSource == SlopeSource::NearNoDelay;
      const LinearFit &fit = near ? g.nearPart : g.line;
      e.gainPercent = {gain(fit.slope, g.slackElsewhereNs),
                       {gain(fit.slopeCI.lo, g.slackElsewhereCI.lo),
                        gain(fit.slopeCI.hi, inf)}};
      std::vector<std::string> notes;
      if (near) {
        // The curve steepens with delay (that is why this stretch was
        // chosen), and on such a curve a speedup gains no more than the
        // same slow-down loses, however much less: the stretch's gain is
        // the most, and the interval reaches down to nothing.
        e.gainPercent.ci.lo = std::min(e.gainPercent.ci.lo, 0.0);
        notes.push_back("from the stretch near no delay (the curve steepens "
                        "with delay): the most it would gain, down to nothing");
      }
      if (g.shape == Shape::Negative && g.callRate.applies) {
        // The line sees only the slow-down side of a loss that steepens as
        // the calls come faster; it stays as the loss's lower end.
        CallRateGain byRate =
            callRateGain(g.callRate, e.usedNs, conf, settings.resamples, rng);
        e.lineGainPercent = e.gainPercent;
        e.gainPercent = {byRate.value, byRate.ci};
        e.callRateGainPercent = e.gainPercent;
        e.byCallRate = true;
        notes.push_back(callRateNote(e.lineGainPercent.value));
      }
      if (e.capped)
        notes.push_back(
            fmt::format("capped at {} per call ({})", formatDuration(e.usedNs),
                        g.targetNsPerCall > 0 && e.usedNs == g.targetNsPerCall
                            ? "the function's own time per call"
                            : "the largest delay measured"));
      if (slackCapped)
        notes.push_back(fmt::format(
            "{} at {} saved per unit of work ({}% CI [{}, {}]), the slack {} "
            "showed: past it {} is the bottleneck (a lower bound of the "
            "slack: the upper end is the line's)",
            e.gainPercent.value < gain(fit.slope, inf) ? "capped"
                                                       : "its lower end capped",
            formatDuration(g.slackElsewhereNs), int(std::lround(100 * conf)),
            formatDuration(g.slackElsewhereCI.lo),
            formatDuration(g.slackElsewhereCI.hi), g.slackElsewhereGroup,
            g.slackElsewhereGroup));
      if (g.shape == Shape::Negative)
        notes.insert(notes.begin(),
                     "a loss: speeding it up slows the program down");
      for (const std::string &note : notes)
        e.note += (e.note.empty() ? "" : "; ") + note;
      break;
    }
    }
    g.extrapolations.push_back(e);
  }
}

SweepAnalysis analyzeSweep(const std::vector<std::string> &groupNames,
                           const std::vector<std::string> &groupFiles,
                           const std::vector<std::uint64_t> &delays,
                           const std::vector<RunPoint> &points,
                           const AnalysisSettings &settings) {
  SweepAnalysis a;
  Rng rng(settings.seed ^ 0x9e3779b97f4a7c15ull);
  double conf = settings.confidence;
  unsigned B = settings.resamples;
  std::vector<RunPoint> unarmed;
  for (const RunPoint &p : points)
    if (p.group < 0)
      unarmed.push_back(p);
  a.unarmedThroughput =
      summarize(column(unarmed, &RunPoint::throughput), conf, B, rng);
  a.unarmedTimePerUnitNs =
      summarize(column(unarmed, &RunPoint::timePerUnitNs), conf, B, rng);
  a.noisePercent = 100 * a.unarmedTimePerUnitNs.robustCV();
  a.unarmedCpuWaitShare = knownCpuWaitShare(unarmed);

  for (std::size_t gi = 0; gi < groupNames.size(); ++gi) {
    GroupAnalysis g;
    g.name = groupNames[gi];
    g.file = groupFiles[gi];
    std::vector<double> x, y, levelX, baseline;
    std::vector<std::size_t> level;
    std::vector<double> callsPerUnit, nsPerCall, workPerCall;
    std::vector<CallRateRun> callRateRuns;
    std::vector<double> mutexWait, held;
    std::vector<RunPoint> delayedRuns;
    for (std::uint64_t delay : delays) {
      std::vector<RunPoint> runs;
      for (const RunPoint &p : points)
        if (p.group == int(gi) && p.delayNs == delay)
          runs.push_back(p);
      if (runs.empty())
        continue;
      LevelStats s;
      s.delayNs = delay;
      s.throughput =
          summarize(column(runs, &RunPoint::throughput), conf, B, rng);
      std::vector<double> times = column(runs, &RunPoint::timePerUnitNs);
      s.timePerUnitNs = summarize(times, conf, B, rng);
      s.delayPerUnitNs = delay ? medianOf(runs, &RunPoint::delayPerUnitNs) : 0;
      s.delayedCallsPerUnit = medianOf(runs, &RunPoint::delayedCallsPerUnit);
      if (delay == 0)
        baseline = times;
      if (delay && !baseline.empty() && s.delayPerUnitNs > 0) {
        double perUnit = s.delayPerUnitNs;
        auto passThrough = [perUnit](const std::vector<double> &here,
                                     const std::vector<double> &base) {
          return (median(here) - median(base)) / perUnit;
        };
        s.passThrough = {
            passThrough(times, baseline),
            bootstrapInterval2(times, baseline, passThrough, conf, B, rng)};
      } else {
        s.passThrough = {NaN, {NaN, NaN}};
      }
      for (const RunPoint &p : runs) {
        double calls = double(settings.frequency) * p.delayedCallsPerUnit;
        callRateRuns.push_back(
            {g.levels.size(), calls, p.timePerUnitNs,
             delay && calls > 0 ? p.delayPerUnitNs / calls : 0});
        x.push_back(delay ? p.delayPerUnitNs : 0);
        y.push_back(p.timePerUnitNs);
        level.push_back(g.levels.size());
        if (delay)
          callsPerUnit.push_back(p.delayedCallsPerUnit);
        else if (p.targetNsPerCall > 0)
          nsPerCall.push_back(p.targetNsPerCall);
        if (!delay && p.targetWorkNsPerCall > 0)
          workPerCall.push_back(p.targetWorkNsPerCall);
        if (!delay)
          mutexWait.push_back(p.mutexWaitShare);
        if (p.targetHeldShare >= 0)
          held.push_back(p.targetHeldShare);
      }
      levelX.push_back(s.delayPerUnitNs);
      g.levels.push_back(s);
      if (!delay)
        g.cpuWaitShareUndelayed = knownCpuWaitShare(runs);
      else
        delayedRuns.insert(delayedRuns.end(), runs.begin(), runs.end());
    }
    // Over all its delayed runs: stacked threads wait at every delay, while
    // a passing blip (a short run beside another process starting) moves
    // one delay's few runs (a single-threaded stand-in once read 23% at one
    // delay, 0% without).
    g.cpuWaitShareDelayed = knownCpuWaitShare(delayedRuns);
    double delayedWallNs =
        delayedRuns.empty() ? 0 : medianOf(delayedRuns, &RunPoint::wallNs);
    if (g.cpuWaitShareUndelayed < 0)
      g.cpuWaitShareUndelayed = a.unarmedCpuWaitShare;
    g.tookTurns = g.cpuWaitShareUndelayed >= 0 && g.cpuWaitShareDelayed >= 0 &&
                  delayedWallNs > 0 &&
                  g.cpuWaitShareDelayed - g.cpuWaitShareUndelayed >=
                      TookTurnsShare + TurnsBlipNs / delayedWallNs;
    g.callsPerUnit = callsPerUnit.empty()
                         ? 0
                         : double(settings.frequency) * median(callsPerUnit);
    g.targetNsPerCall = nsPerCall.empty() ? -1 : median(nsPerCall);
    g.targetWorkNsPerCall = workPerCall.empty() ? -1 : median(workPerCall);
    g.mutexWaitShare = mutexWait.empty() ? 0 : median(mutexWait);
    g.heldShare = held.empty() ? -1 : median(held);
    g.noisePercent = g.levels.empty() || g.levels[0].delayNs != 0
                         ? NaN
                         : 100 * g.levels[0].timePerUnitNs.robustCV();
    if (!baseline.empty() && !unarmed.empty()) {
      std::vector<double> control = column(unarmed, &RunPoint::timePerUnitNs);
      auto overhead = [](const std::vector<double> &armed,
                         const std::vector<double> &plain) {
        return 100 * (ratioOfMedians(armed, plain) - 1);
      };
      g.overheadPercent = {
          overhead(baseline, control),
          bootstrapInterval2(baseline, control, overhead, conf, B, rng)};
    } else {
      g.overheadPercent = {NaN, {NaN, NaN}};
    }
    if (!unarmed.empty())
      g.unarmedTimePerUnitNs = a.unarmedTimePerUnitNs.median;
    g.line = fitLinear(x, y, conf);
    g.callRate = fitCallRateModel(std::move(callRateRuns), conf);
    // The hinge's knee grid needs ascending level positions.
    bool ascending =
        std::is_sorted(levelX.begin(), levelX.end()) &&
        std::adjacent_find(levelX.begin(), levelX.end()) == levelX.end();
    if (ascending)
      g.hinge = testHinge(x, y, level, levelX, conf, B, rng);
    if (g.hinge.ok) {
      std::vector<double> flatX, flatY;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] <= g.hinge.fit.knee * (1 + 1e-9)) {
          flatX.push_back(x[i]);
          flatY.push_back(y[i]);
        }
      g.flatPart = fitLinear(flatX, flatY, conf);
    }
    // No delay and the smaller half of the delays (at least two of them),
    // where there are more delays than that.
    std::size_t delayed = levelX.size() > 0 ? levelX.size() - 1 : 0;
    if (ascending && delayed >= 3) {
      double bound = levelX[std::max<std::size_t>(2, (delayed + 1) / 2)];
      std::vector<double> nearX, nearY;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] <= bound * (1 + 1e-9)) {
          nearX.push_back(x[i]);
          nearY.push_back(y[i]);
        }
      g.nearPart = fitLinear(nearX, nearY, conf);
      g.nearPartUpToNs = bound;
    }
    a.groups.push_back(std::move(g));
  }
  // Every group's hinge is a test: with several, correct for their number
  // (Holm), so that noise alone rarely makes any of them a threshold.
  std::vector<double> pValues;
  std::vector<GroupAnalysis *> tested;
  for (GroupAnalysis &g : a.groups)
    if (g.hinge.ok) {
      pValues.push_back(g.hinge.pValue);
      tested.push_back(&g);
    }
  std::vector<double> levels = holmLevels(pValues, 1 - conf);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    tested[i]->hingeAlpha = levels[i];
    tested[i]->hingeTests = unsigned(tested.size());
  }
  for (GroupAnalysis &g : a.groups) {
    classify(g, settings);
    distrustASlopeFromTakingTurns(g);
  }
  for (GroupAnalysis &g : a.groups) {
    for (const GroupAnalysis &other : a.groups)
      if (&other != &g && other.shape == Shape::Threshold &&
          !(other.hinge.fit.knee >= g.slackElsewhereNs)) {
        g.slackElsewhereNs = other.hinge.fit.knee;
        g.slackElsewhereGroup = other.name;
        // A knee without a bootstrap interval caps every end at itself.
        const Interval &ci = other.hinge.kneeCI;
        bool hasCI = std::isfinite(ci.lo) && std::isfinite(ci.hi);
        g.slackElsewhereCI = {hasCI ? std::min(ci.lo, other.hinge.fit.knee)
                                    : other.hinge.fit.knee,
                              hasCI ? std::max(ci.hi, other.hinge.fit.knee)
                                    : other.hinge.fit.knee};
      }
    // Each group's own delays: with --delays auto, groups have different
    // ladders, and a group's estimates stay within what it measured.
    std::vector<std::uint64_t> measured;
    for (const LevelStats &level : g.levels)
      measured.push_back(level.delayNs);
    extrapolate(g, settings, measured);
    if (g.shape == Shape::Negative)
      g.evidence.push_back((g.callRate.applies
                                ? "loss by call rate: "
                                : "loss by a line through the slow-downs (the "
                                  "least it would be); the call-rate model "
                                  "does not apply: ") +
                           g.callRate.why);
  }

  for (GroupAnalysis &g : a.groups) {
    switch (g.shape) {
    case Shape::Linear:
      g.verdict =
          "on the critical path (linear), pass-through " + ratio(g.passThrough);
      if (g.slopeSource == SlopeSource::NearNoDelay)
        g.verdict += " near no delay, steeper past it";
      break;
    case Shape::SubLinear:
      g.verdict = "partly on the critical path (sub-linear), pass-through " +
                  ratio(g.passThrough);
      if (g.slopeSource == SlopeSource::NearNoDelay)
        g.verdict += " near no delay, steeper past it";
      break;
    case Shape::None:
      g.verdict =
          "off the critical path (none), pass-through " + ratio(g.passThrough);
      break;
    case Shape::Threshold:
      g.verdict =
          fmt::format("off the critical path with {} of slack per "
                      "call (threshold), pass-through {} past it",
                      formatDuration(g.slackNsPerCall), ratio(g.passThrough));
      if (g.slopeSource == SlopeSource::BeforeKnee)
        g.verdict += fmt::format(" and {:.2f} before it (a soft knee)",
                                 g.flatPart.slope);
      break;
    case Shape::Negative:
      g.verdict = negativeVerdict(g);
      break;
    case Shape::Inconclusive:
      g.verdict = g.tookTurns
                      ? "inconclusive (its threads took turns for a "
                        "CPU while it was delayed), pass-through " +
                            ratio(g.passThrough)
                      : "inconclusive, pass-through " + ratio(g.passThrough);
      break;
    }
    cautionNearAContendedMutex(g);
    crossCheckALossThroughACallRate(g);
  }
  // Most critical first: on the path (by pass-through), then thresholds
  // (least slack first), then off it, then the ones that would hurt, then
  // inconclusive.
  auto rank = [](const GroupAnalysis &g) {
    switch (g.shape) {
    case Shape::Linear:
    case Shape::SubLinear:
      return std::make_pair(0, -g.passThrough.value);
    case Shape::Threshold:
      return std::make_pair(1, std::isnan(g.slackNsPerCall) ? 1e300
                                                            : g.slackNsPerCall);
    case Shape::None:
      return std::make_pair(2, -g.passThrough.value);
    case Shape::Negative:
      return std::make_pair(3, g.passThrough.value);
    case Shape::Inconclusive:
      break;
    }
    return std::make_pair(4, -g.passThrough.value);
  };
  rankGroups(a.groups, rank, a.ranking, a.answer);
  return a;
}

} // namespace perfcc::perfctl
