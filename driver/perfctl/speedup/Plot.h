//===- Plot.h - a speedup sweep's plot.svg, through gnuplot ---*- C++ -*-===//
//
// The curve Coz plots: the predicted throughput change (%) against the
// virtual speedup P (%), one colour per group: the gain at each requested
// percent with its bootstrap interval as error bars, every run's own gain
// (against the baseline's median) as a small point, the line fitted to the
// effective time per unit of work turned into a gain curve, and zero as a
// dashed line. As in a speed-bump sweep, plot.dat and plot.gp stay beside
// plot.svg for restyling.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SPEEDUP_PLOT_H
#define PERFCC_DRIVER_PERFCTL_SPEEDUP_PLOT_H

#include "speedup/Analysis.h"
#include "sweep/Runner.h"

#include <string>

namespace perfcc::perfctl {

/// plot.dat: per group, the levels (P, gain, CI low, CI high) then every
/// run (P, gain), each block separated by two blank lines.
std::string renderSpeedupPlotData(const SweepState &state,
                                  const SpeedupAnalysis &analysis);
/// The gnuplot script for \p outDir's plot.dat, writing plot.svg there.
std::string renderSpeedupPlotScript(const SweepState &state,
                                    const SpeedupAnalysis &analysis,
                                    const std::string &outDir);
/// Writes plot.dat and plot.gp and runs gnuplot; false with \p message when
/// gnuplot is missing or fails.
bool writeSpeedupPlot(const SweepState &state, const SpeedupAnalysis &analysis,
                      std::string &message);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SPEEDUP_PLOT_H
