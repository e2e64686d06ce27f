//===- Report.h - sweep.json and report.md ----------------------*- C++ -*-===//
//
// sweep.json holds every run (delay, group, repeat, exit status, throughput,
// delivered delay, wall time) and, once the sweep is complete, the
// statistics: per-delay summaries, fits, classification with evidence,
// extrapolations, controls, ranking, answer. It is rewritten after every
// run. report.md says the same for people: a table per group, the
// classification with its evidence, the extrapolation and the controls.
// The field list is in docs/perfctl.md. A speedup sweep's analysis and
// report are SpeedupReport's.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_REPORT_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_REPORT_H

#include "speedup/Analysis.h"
#include "sweep/Analysis.h"
#include "sweep/Runner.h"

#include <filesystem>
#include <string>

namespace perfcc::perfctl {

/// The text of sweep.json; \p analysis (a speed-bump sweep's) and
/// \p speedup (a speedup sweep's) may be null (sweep not complete).
std::string renderSweepJson(const SweepState &state,
                            const SweepAnalysis *analysis,
                            const SpeedupAnalysis *speedup = nullptr);
/// Writes OUT/sweep.json (through a temporary file and a rename, so a
/// reader never sees half of it).
bool writeSweepJson(const SweepState &state, const SweepAnalysis *analysis,
                    std::string &error,
                    const SpeedupAnalysis *speedup = nullptr);
/// Writes \p text into \p path through a temporary file and a rename.
bool writeAtomically(const std::filesystem::path &path, const std::string &text,
                     std::string &error);

/// What became of the runs disturbed by other processes (made again, or
/// kept once the machine did not settle), for report.md; "" when none were.
std::string remadeSentence(const SweepState &state);

/// The text of report.md.
std::string renderMarkdown(const SweepState &state,
                           const SweepAnalysis &analysis, bool withPlot);
bool writeMarkdown(const SweepState &state, const SweepAnalysis &analysis,
                   bool withPlot, std::string &error);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_REPORT_H
