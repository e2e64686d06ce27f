//===- Sizing.h - a sweep that chooses its delays and repeats --*- C++ -*-===//
//
// `--delays auto` (the default): a pilot of armed zero-delay runs measures
// each group's time per unit of work and calls per unit, and each group gets
// its own ladder, whose largest delay adds LadderShare of the time per unit
// (enough to pass any slack a function can have: slack is at most the time
// per unit), with points spaced so that a knee anywhere below two thirds of
// the range has a point under it and two above it.
//
// Adaptive repeats (the default, or with --budget): after the first
// repeats, a round at a time, another run of every delay of each group whose
// answer is not settled (inconclusive, a pass-through interval wider than
// the target, or a threshold's knee not pinned down), until every group is
// settled, the budget would be overrun by the next round, or MaxRepeats is
// reached; the sweep says which stopped it.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_SIZING_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_SIZING_H

#include "sweep/Analysis.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcc::perfctl {

/// The largest delay of an automatic ladder adds this share of the time per
/// unit of work (1.5: +150% for a function fully on the critical path).
constexpr double LadderShare = 1.5;
/// The ladder's delays as fractions of its largest.
constexpr double LadderSteps[] = {1.0 / 16, 1.0 / 8, 1.0 / 4,
                                  1.0 / 2,  3.0 / 4, 1.0};
/// Pilot runs per group (and unarmed controls) before a ladder is chosen.
constexpr unsigned PilotRepeats = 3;
/// Pilot controls noisier than this (robust CV, %) get a warning with
/// run-length guidance.
constexpr double PilotNoisyPercent = 3.0;
/// An adaptive sweep stops adding repeats here.
constexpr unsigned MaxRepeats = 30;

/// "90", "90s", "5m", "1.5h": seconds, above 0. On failure sets \p error to
/// a sentence (without the option's name).
std::optional<double> parseBudget(std::string_view text, std::string &error);

/// \p ns rounded to two significant digits (1 ns at least): 1234 -> 1200.
std::uint64_t roundDelay(double ns);

/// A group's automatic ladder.
struct Ladder {
  std::vector<std::uint64_t> delays; ///< ascending, from 0
  std::string why;                   ///< what was measured and chosen
  bool ok = false;                   ///< false: nothing to size from
};
/// The ladder for a group whose armed zero-delay runs took
/// \p timePerUnitNs per unit of work with \p delayedCallsPerUnit delayed
/// calls per unit.
Ladder chooseLadder(double timePerUnitNs, double delayedCallsPerUnit);

/// Whether a group's answer needs no more runs, and why (a sentence).
struct Settled {
  bool settled = false;
  std::string why;
};
/// A loss modelled through its call rate (CallRateModel.h) is settled when
/// its largest estimate's interval is at most this many points wide, or
/// the target width's share of the loss.
constexpr double LossSettledPoints = 4.0;

/// A threshold is settled when its knee's interval is at most this many
/// times the pass-through target, as a share of the knee, wide (the default
/// 0.2 allows 40%, about +-20% on the slack reported).
constexpr double KneeSettledShare = 2.0;

/// Settled: a shape other than inconclusive with a pass-through interval
/// at most \p targetWidth wide, a threshold whose knee is pinned down
/// (KneeSettledShare), and a loss modelled through its call rate whose
/// largest estimate is narrow (LossSettledPoints); and an inconclusive
/// group whose threads took turns for a CPU at its delays (tookTurns: more
/// runs would measure the machine's doing again).
Settled isSettled(const GroupAnalysis &group, double targetWidth);

/// What stopped an adaptive sweep.
enum class StopReason { Fixed, Settled, Budget, MaxRepeats };
const char *stopReasonName(StopReason reason);

/// The decision after a round: which groups get another, or why none does.
struct NextRound {
  std::vector<int> groups; ///< empty: stop
  StopReason stop = StopReason::Settled;
};
/// Per group: \p settled, the \p repeats made, and \p roundS, the time a
/// round of its runs is expected to take; \p controlS, an unarmed run's
/// (every round has one); \p elapsedS of the budget \p budgetS spent. The
/// unsettled groups below MaxRepeats get the round, if it fits the budget.
NextRound nextRound(const std::vector<bool> &settled,
                    const std::vector<unsigned> &repeats,
                    const std::vector<double> &roundS, double controlS,
                    double elapsedS, double budgetS);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_SIZING_H
