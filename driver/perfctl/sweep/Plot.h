//===- Plot.h - plot.svg through gnuplot ------------------------*- C++ -*-===//
//
// Throughput against the delay injected per unit of work, one series per
// group: the median of each delay with its bootstrap interval as error bars,
// every run as a small point, the fitted model (the hinge for a threshold,
// else the line) drawn over the range measured, and the unarmed control's
// median as a dashed line. perfctl writes the data (plot.dat) and a gnuplot
// script (plot.gp) and runs gnuplot on it (`set terminal svg`); both files
// stay, so the plot can be restyled by hand.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_PLOT_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_PLOT_H

#include "sweep/Analysis.h"
#include "sweep/Runner.h"

#include <string>

namespace perfcc::perfctl {

/// The gnuplot script for \p outDir's plot.dat, writing plot.svg there.
std::string renderPlotScript(const SweepState &state,
                             const SweepAnalysis &analysis,
                             const std::string &outDir);
/// plot.dat: per group, the medians (x in us, throughput, CI) then the runs,
/// each block separated by two blank lines (gnuplot's `index`).
std::string renderPlotData(const SweepState &state,
                           const SweepAnalysis &analysis);

/// Writes plot.dat and plot.gp and runs gnuplot. False, with \p message
/// saying why, when gnuplot is missing or fails (plot.gp stays).
bool writePlot(const SweepState &state, const SweepAnalysis &analysis,
               std::string &message);

/// Runs gnuplot on \p outDir/plot.gp (absolute), which writes plot.svg
/// there; false with \p message when gnuplot is missing or fails.
bool runGnuplot(const std::string &outDir, std::string &message);

/// \p text as a gnuplot single-quoted string.
std::string gnuplotQuote(const std::string &text);
/// \p v as gnuplot reads it back exactly (NaN for what does not exist).
std::string gnuplotNumber(double v);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_PLOT_H
