//===- Rounds.h - a sweep's runs: pilot, first repeats, rounds --*- C++ -*-===//
//
// Every run a sweep makes, in the order it decides them: with --delays auto
// the pilot (zero-delay runs and controls) and each group's ladder from it
// (sweep/Sizing.h); the first repeats; and, in an adaptive sweep, a round at
// a time for the groups whose answer is unsettled, until every group is
// settled, the budget would be overrun or a group has MaxRepeats. What
// stopped it, and how each group was sized, go into the state for
// sweep.json and report.md.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_ROUNDS_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_ROUNDS_H

#include "speedup/Analysis.h"
#include "sweep/Analysis.h"
#include "sweep/Runner.h"

#include <string>
#include <vector>

namespace perfcc::perfctl {

/// Makes every run of the sweep in \p state (whose plan holds the groups,
/// and the runs when the delays were given); \p names and \p files are the
/// groups'. Returns runSweep's status: 0, 1 (state.error says why) or 130.
int runPlannedRuns(SweepState &state, const std::vector<std::string> &names,
                   const std::vector<std::string> &files);

/// Each group's repeats and whether its answer is settled, from
/// \p analysis, into state.sizing.
void recordSizing(SweepState &state, const SweepAnalysis &analysis);

/// An inconclusive verdict says what would settle it, for the reason the
/// runs ended (the budget, fixed repeats, the maximum); the answer follows.
void adviseUnsettled(const SweepState &state, SweepAnalysis &analysis);
/// The same for an adaptive speedup sweep: a gain whose interval was still
/// wide when the runs stopped says so, and the budget that would narrow it.
void adviseUnsettled(const SweepState &state, SpeedupAnalysis &analysis);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_ROUNDS_H
