//===- Report.h - a speedup sweep's analysis and report ---------*- C++ -*-===//
//
// What perfctl sweep --speedup writes beyond the runs: the "analysis" object
// of sweep.json (per group: validity, per-percent virtual and real
// throughput, predicted gains with intervals, the slope at small P, the
// line, the headline; the ranking and the answer) and report.md, whose
// tables read "if GROUP were P% faster: throughput +X% [a, b]". The field
// list is in docs/perfctl.md.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SPEEDUP_REPORT_H
#define PERFCC_DRIVER_PERFCTL_SPEEDUP_REPORT_H

#include "speedup/Analysis.h"
#include "sweep/Runner.h"

#include <nlohmann/json.hpp>

#include <string>

namespace perfcc::perfctl {

/// sweep.json's "analysis" of a speedup sweep.
nlohmann::ordered_json speedupAnalysisJson(const SpeedupAnalysis &analysis);

/// The text of report.md for a speedup sweep.
std::string renderSpeedupMarkdown(const SweepState &state,
                                  const SpeedupAnalysis &analysis,
                                  bool withPlot);
bool writeSpeedupMarkdown(const SweepState &state,
                          const SpeedupAnalysis &analysis, bool withPlot,
                          std::string &error);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SPEEDUP_REPORT_H
