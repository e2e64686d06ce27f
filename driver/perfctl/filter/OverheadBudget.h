//===- OverheadBudget.h - which functions a probe budget keeps --*- C++ -*-===//
//
// perfctl filter's decision, as Score-P users know it from scorep-score:
// from a run's summary and what a probe pair costs on this machine, which
// functions to leave uninstrumented so that the probes cost at most a given
// share of the run they will be in. A thread's probe time is its calls
// times the pair's cost; the worst thread's sets the run's length. The
// program's own time is the measured run less the worst thread's probe time
// (at least a tenth of the run); the share is the kept probe time over the
// program's own time plus it (5% of the run is a slowdown of 5.3%). While
// the share is over the budget, the worst thread's most costly function to
// probe, the one whose calls are shortest (a probe's cost is the largest
// share of its time), is left out: tiny hot functions go first. A function
// whose probes cost under a thousandth of the budget stays: leaving it out
// could not move the budget.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_FILTER_OVERHEADBUDGET_H
#define PERFCC_DRIVER_PERFCTL_FILTER_OVERHEADBUDGET_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace perfcc::perfctl {

/// One function of the summary, as the budget sees it.
struct BudgetFunction {
  std::string name, mangled;
  std::uint64_t calls = 0;
  double meanInclusiveNs = 0;
  bool excluded = false;
  double probeShare = 0; ///< of all probe time in the run, 0..1
};

struct BudgetDecision {
  std::vector<BudgetFunction> functions; ///< the summary's order
  /// The probes' share of the run as measured, and of the run with only
  /// the kept probes; fractions: 0.05 is 5%.
  double overheadBefore = 0, overheadAfter = 0;
  std::uint64_t callsBefore = 0, callsAfter = 0;
  std::size_t excludedCount() const;
  /// The functions left out, costliest to probe first (ties by name): the
  /// order a reader weighs them in, and the same in every run, where the
  /// summary's order can change from one run of a program to the next.
  std::vector<const BudgetFunction *> leftOut() const;
};

/// Decides for the summary \p summary (a runtime's or perfctl merge's) with
/// probe pairs costing \p probeNs and a budget of \p budget (0.05: 5%).
/// Throws std::runtime_error naming what the summary lacks.
BudgetDecision decideBudget(const nlohmann::json &summary, double probeNs,
                            double budget);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_FILTER_OVERHEADBUDGET_H
