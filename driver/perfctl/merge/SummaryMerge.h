//===- SummaryMerge.h - several processes' summaries as one -----*- C++ -*-===//
//
// perfctl merge's summary half: the summaries of the processes whose traces
// are merged, as one summary in the runtime's schema. A function is the same
// function in two processes when its name, mangled name, file and line
// agree (a forked child runs its parent's code); its calls and the totals,
// minima and maxima of its inclusive and exclusive time combine exactly,
// its mean follows from them. Percentiles of a union cannot be had from the
// parts: a function seen in several processes has no p50 and p99, and its
// `processes` list keeps each process's own figures, percentiles included.
// Threads carry their pid; progress points add up by name (counts and
// rates: the processes ran side by side); drops add up; the window spans
// every process's. Each summary, less its functions and threads, is kept in
// `merged` with its file, so nothing any process recorded is lost.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_MERGE_SUMMARYMERGE_H
#define PERFCC_DRIVER_PERFCTL_MERGE_SUMMARYMERGE_H

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace perfcc::perfctl {

/// One summary to merge: its file and its parsed document.
/// Key order is kept, so the merged summary reads as the runtime's do.
using SummaryFile = std::pair<std::string, nlohmann::ordered_json>;

/// The summaries \p summaries as one; \p version is perfctl's. Throws
/// std::runtime_error ("FILE: problem") for a document that is not a
/// runtime summary.
nlohmann::ordered_json mergeSummaries(const std::vector<SummaryFile> &summaries,
                                      const std::string &version);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_MERGE_SUMMARYMERGE_H
