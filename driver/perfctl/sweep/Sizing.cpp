//===- Sizing.cpp - a sweep that chooses its delays and repeats -----------===//
#include "sweep/Sizing.h"

#include "sweep/Plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace perfcc::perfctl {

std::optional<double> parseBudget(std::string_view text, std::string &error) {
  auto bad = [&](std::string_view why) -> std::optional<double> {
    error = fmt::format("'{}' is not a time budget ({}; e.g. 90s, 5m, 1.5h)",
                        text, why);
    return std::nullopt;
  };
  std::size_t at = 0;
  double value = 0, scale = 1;
  bool digits = false, point = false;
  for (; at < text.size(); ++at) {
    char c = text[at];
    if (c == '.' && !point) {
      point = true;
    } else if (c >= '0' && c <= '9') {
      digits = true;
      if (point)
        value += (c - '0') * (scale /= 10);
      else
        value = value * 10 + (c - '0');
    } else {
      break;
    }
  }
  if (!digits)
    return bad(text.empty() ? "empty" : "a number and a unit");
  std::string_view unit = text.substr(at);
  double seconds = unit.empty() || unit == "s"    ? value
                   : unit == "m" || unit == "min" ? value * 60
                   : unit == "h"                  ? value * 3600
                                                  : -1;
  if (seconds < 0)
    return bad(fmt::format("unknown unit '{}': s, m or h", unit));
  if (seconds < 1)
    return bad("at least one second");
  return seconds;
}

std::uint64_t roundDelay(double ns) {
  if (!(ns >= 1))
    return 1;
  double magnitude = std::pow(10.0, std::floor(std::log10(ns)) - 1);
  return std::max<std::uint64_t>(
      1, std::uint64_t(std::llround(std::round(ns / magnitude) * magnitude)));
}

Ladder chooseLadder(double timePerUnitNs, double delayedCallsPerUnit) {
  Ladder ladder;
  if (!(timePerUnitNs > 0) || !(delayedCallsPerUnit > 0)) {
    ladder.why = "the pilot runs delayed no call of the targets";
    return ladder;
  }
  double top = LadderShare * timePerUnitNs / delayedCallsPerUnit;
  ladder.delays.push_back(0);
  for (double step : LadderSteps)
    ladder.delays.push_back(roundDelay(top * step));
  std::sort(ladder.delays.begin(), ladder.delays.end());
  ladder.delays.erase(std::unique(ladder.delays.begin(), ladder.delays.end()),
                      ladder.delays.end());
  ladder.ok = ladder.delays.size() >= 3;
  ladder.why = fmt::format(
      "pilot: {} per unit of work, {:.3g} delayed calls per unit; the largest "
      "delay, {} a call, adds {:.0f}% of the time per unit (no slack can be "
      "larger than the time per unit)",
      formatDuration(timePerUnitNs), delayedCallsPerUnit,
      formatDelay(ladder.delays.back()),
      100 * double(ladder.delays.back()) * delayedCallsPerUnit / timePerUnitNs);
  if (ladder.delays[1] < 50)
    ladder.why += "; its smallest delays are under 50ns, which the spin "
                  "delivers coarsely: --frequency N delays every Nth call "
                  "by more";
  if (!ladder.ok)
    ladder.why += "; too few distinct delays to fit";
  return ladder;
}

Settled isSettled(const GroupAnalysis &group, double targetWidth) {
  Settled s;
  if (group.shape == Shape::Inconclusive) {
    s.why = group.evidence.empty() ? "inconclusive" : group.evidence.back();
    // Threads that took turns for a CPU at its delays are the machine's
    // doing: more runs on it measure the same again.
    s.settled = group.tookTurns;
    return s;
  }
  double width = group.passThrough.ci.width();
  s.settled = width <= targetWidth;
  s.why = fmt::format("{}, pass-through interval {:.2f} wide ({} {:.2f})",
                      shapeName(group.shape), width,
                      s.settled ? "at most" : "above", targetWidth);
  // A threshold's slack is an answer too (and caps the gains predicted for
  // the other groups): its knee must be pinned down as well as its slope.
  const Interval &knee = group.hinge.kneeCI;
  if (s.settled && group.shape == Shape::Threshold && std::isfinite(knee.lo) &&
      std::isfinite(knee.hi)) {
    double allowed = KneeSettledShare * targetWidth * group.hinge.fit.knee;
    s.settled = knee.width() <= allowed;
    s.why += fmt::format(
        "; its knee's interval {} wide ({} {}, {:.0f}% of "
        "the knee)",
        formatDuration(knee.width()), s.settled ? "at most" : "above",
        formatDuration(allowed), 100 * KneeSettledShare * targetWidth);
  }
  // A loss modelled through the call rate rests on two fits whose errors
  // compound: its largest estimate must be narrow too.
  const Extrapolation *loss = nullptr;
  for (const Extrapolation &e : group.extrapolations)
    if (e.valid && e.byCallRate)
      loss = &e;
  if (s.settled && loss) {
    double lossWidth = loss->gainPercent.ci.width();
    double allowed = std::max(LossSettledPoints,
                              targetWidth * std::fabs(loss->gainPercent.value));
    s.settled = lossWidth <= allowed;
    s.why += fmt::format("; its loss at {} faster a call {:.1f} points wide "
                         "({} {:.1f})",
                         formatDuration(loss->usedNs), lossWidth,
                         s.settled ? "at most" : "above", allowed);
  }
  return s;
}

const char *stopReasonName(StopReason reason) {
  switch (reason) {
  case StopReason::Fixed:
    return "fixed";
  case StopReason::Settled:
    return "settled";
  case StopReason::Budget:
    return "budget";
  case StopReason::MaxRepeats:
    return "max-repeats";
  }
  return "?";
}

NextRound nextRound(const std::vector<bool> &settled,
                    const std::vector<unsigned> &repeats,
                    const std::vector<double> &roundS, double controlS,
                    double elapsedS, double budgetS) {
  NextRound next;
  bool unsettled = false;
  double seconds = controlS;
  for (std::size_t g = 0; g < settled.size(); ++g) {
    if (settled[g])
      continue;
    unsettled = true;
    if (repeats[g] >= MaxRepeats)
      continue;
    next.groups.push_back(int(g));
    seconds += roundS[g];
  }
  if (!unsettled) {
    next.stop = StopReason::Settled;
    return next;
  }
  if (next.groups.empty()) {
    next.stop = StopReason::MaxRepeats;
    return next;
  }
  if (elapsedS + seconds > budgetS) {
    next.groups.clear();
    next.stop = StopReason::Budget;
  }
  return next;
}

} // namespace perfcc::perfctl
