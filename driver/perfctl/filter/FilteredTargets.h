//===- FilteredTargets.h - a targets file that leaves functions out -*- C++
//-*-===//
//
// perfctl filter's output: a targets file (docs/selecting-functions.md)
// that selects what the given one did, or every compiled-in probe when none
// was given (`*`, for PERFCC_TARGETS at run time), less the functions a
// budget left out. Those are named by their mangled names, which need no
// escaping and tell overloads apart, each with a comment giving its name,
// calls, time a call and share of the probes' cost; in a Score-P filter
// file they are EXCLUDE MANGLED rules in a block of their own.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_FILTER_FILTEREDTARGETS_H
#define PERFCC_DRIVER_PERFCTL_FILTER_FILTEREDTARGETS_H

#include "filter/OverheadBudget.h"

#include <string>

namespace perfcc::perfctl {

/// The targets file: \p header (comment lines, each starting with '#'),
/// then \p original (the given targets file's text; empty: none given, so
/// `*`), then the exclusions of \p decision. \p scoreP: \p original is a
/// Score-P filter file.
std::string filteredTargets(const BudgetDecision &decision,
                            const std::string &header,
                            const std::string &original, bool scoreP);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_FILTER_FILTEREDTARGETS_H
