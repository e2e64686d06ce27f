//===- CrossCheck.h - a verdict from the other side -------------*- C++ -*-===//
//
// Speed bumps slow a function down, and a lock has sides that slowing down
// cannot show. Beside a contended mutex, a faster call can be back sooner,
// take the mutex again before the waiter it woke runs, and save a hand-off:
// a slack verdict there may be wrong. Holding a contended mutex, a shorter
// critical section can move the bottleneck off the mutex: the gains a line
// through the slow-downs extrapolates are the most a faster call could give
// (docs/methodology.md, Locks). After such a sweep, unless --cross-check
// off, perfctl measures those groups again by virtual speedups (Coz's mode,
// which speeds the function up) into OUT/cross-check/, within what is left
// of the budget (at least a quarter of it); each verdict ends with what they
// say instead of the advice to cross-check by hand, and a holder's gains
// where they measured less than the line are the measured ones.
//
// A loss through a call rate (CallRateModel.h) has the same trouble from the
// other end: the line through the slow-downs says the least it would be,
// the call-rate model (each call's harm held fixed) the most, and where a
// program's harm saturates as the calls come faster the truth lies between.
// It is cross-checked too, and each loss measured is the estimate, brought
// within the line's and the model's where it falls outside them.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_CROSSCHECK_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_CROSSCHECK_H

#include "speedup/Analysis.h"
#include "sweep/Analysis.h"
#include "sweep/Runner.h"

#include <string>
#include <vector>

namespace perfcc::perfctl {

/// The speedups a cross-check measures: --extrapolate's percents when
/// given, else 25% and 50%.
std::vector<unsigned> crossCheckPercents(const AnalysisSettings &settings);

/// Why \p options cannot run a virtual-speedup sweep (its throughput is not
/// a progress point's, or --frequency is set); empty when they can.
std::string crossCheckBlocker(const SweepOptions &options);

/// Records \p measured (the group's virtual-speedup result) in \p group and
/// puts what it says in its verdict, where the advice to cross-check by hand
/// was: a gain, a loss, or neither, at the largest speedup measured; for a
/// group that holds the mutex, each extrapolation at a percent it measured
/// lower than the line takes the measured gain.
void applyCrossCheck(GroupAnalysis &group, const SpeedupGroup &measured);

/// Runs the cross-check of every group of \p analysis that wants one, as a
/// speedup sweep of those groups into OUT/cross-check (its own sweep.json,
/// report.md, plot), within \p budgetLeftS or a quarter of the sweep's
/// budget, whichever is more (its first repeats always run),
/// and applies the results; the answer is rebuilt. A cross-check that
/// cannot run or fails leaves the speed-bump answer standing, with why in
/// each group's crossCheck. Returns 0, or 130 when interrupted.
int runCrossCheck(const SweepState &main, SweepAnalysis &analysis,
                  double budgetLeftS);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_CROSSCHECK_H
