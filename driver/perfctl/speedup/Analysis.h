//===- Analysis.h - what a virtual-speedup sweep says -----------*- C++ -*-===//
//
// perfctl sweep --speedup (Coz's mode): each group's targets are virtually
// sped up by P% (PERFCC_SPEEDUP_PERCENT), and the runtime reports the
// throughput the faster program would have (virtual_rate_per_s). Per group
// and percent: the median of that virtual throughput with its bootstrap
// interval, and the predicted throughput change against the baseline
// (BaselinePercent, the same machinery with a negligible speedup), scaled
// to the whole P; the slope at small P; a line of the effective time per
// unit of work against P (the curve Coz plots); validity (a GPU cannot be
// paused by delaying CPU threads); the ranking and the one-line answer.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SPEEDUP_ANALYSIS_H
#define PERFCC_DRIVER_PERFCTL_SPEEDUP_ANALYSIS_H

#include "sweep/Analysis.h"
#include "sweep/Statistics.h"

#include <limits>
#include <string>
#include <vector>

namespace perfcc::perfctl {

/// One successful run of a speedup sweep, as the analysis sees it.
struct SpeedupPoint {
  int group = -1;               ///< -1: the unarmed control
  unsigned percent = 0;         ///< the virtual speedup; 0 for the control
  double throughput = 0;        ///< real units of work per second
  double virtualThroughput = 0; ///< predicted for the faster program
  bool valid = true;            ///< the runtime's verdict on the speedup
  std::string reason;           ///< why not
};

struct SpeedupLevel {
  unsigned percent = 0;
  Summary virtualThroughput; ///< the prediction, per run
  Summary throughput;        ///< real (slowed by the delays inserted)
  /// Predicted throughput change, in %, if the targets were `percent`%
  /// faster (speedupGain); NaN at the baseline.
  Estimate gainPercent;
};

struct SpeedupGroup {
  std::string name, file;
  bool valid = true;
  std::string reason;               ///< the runtime's, when not valid
  std::vector<SpeedupLevel> levels; ///< ascending, the baseline first
  double noisePercent = 0;  ///< robust CV of the baseline's virtual time
  Estimate overheadPercent; ///< baseline real time per unit vs unarmed
  /// Throughput % per 1% of speedup, from the baseline to the smallest
  /// requested percent: the share of the time per unit of work the targets
  /// hold on the critical path (Coz's slope at small P).
  Estimate slope;
  unsigned slopeToPercent = 0; ///< the level the slope is measured at
  /// Effective time per unit of work (1e9 / virtual throughput, ns) on P
  /// (percent) over every run: intercept = the time at P = 0.
  LinearFit line;
  unsigned headlinePercent = 0; ///< the largest requested
  Estimate headline;            ///< gainPercent at headlinePercent
  std::vector<std::string> evidence;
  std::string verdict; ///< "+26% [+18%, +33%] if 25% faster" / "invalid: .."
};

struct SpeedupAnalysis {
  std::vector<unsigned> percents; ///< ascending, the baseline first
  Summary unarmedThroughput;
  double noisePercent = 0; ///< robust CV of the unarmed time per unit
  std::vector<SpeedupGroup> groups;
  std::vector<std::size_t> ranking; ///< largest predicted gain first
  std::string answer;
};

/// The predicted throughput change, in %, of a \p percent% speedup, from
/// the virtual throughputs at \p percent (\p rate) and at the baseline
/// \p baselinePercent (\p baselineRate). The runs measure the change from
/// the baseline's speedup to this one, (percent - baselinePercent) points;
/// the time per unit of work is extrapolated linearly in P back to P = 0:
///   gain = (rate / baselineRate - 1) * percent / (percent - baselinePercent).
/// With \p referenceTimeNs (the unarmed control's time per unit of work),
/// the gain is the real program's, run without the experiment: the time
/// per unit saved, (1/baselineRate - 1/rate) scaled the same way, against
/// the reference: reference / (reference - saved) - 1.
double
speedupGain(double rate, double baselineRate, unsigned percent,
            unsigned baselinePercent,
            double referenceTimeNs = std::numeric_limits<double>::quiet_NaN());

/// An adaptive speedup sweep's headline interval is narrow enough at this
/// many points wide, whatever the gain: a gain near 0 cannot be asked for a
/// share of itself, and a gain is a difference of two medians, so a
/// program whose runs vary by 3% needs about thirty runs a level for ±3
/// points (the bootstrap's width, measured on synthetic runs).
constexpr double SpeedupSettledPoints = 8.0;

/// Whether a speedup group's answer needs no more runs (settled: invalid,
/// which more runs cannot change, or a headline interval at most
/// max(SpeedupSettledPoints, \p targetWidth x |gain|) wide), and why, in a
/// sentence.
struct SpeedupSettled {
  bool settled = false;
  std::string why;
};
SpeedupSettled isSettled(const SpeedupGroup &group, double targetWidth);

/// "+26%", "-3%", "+0%" (never "-0%"): the gain rounded to a whole percent.
std::string formatGain(double percent);

/// \p names and \p files index the groups of \p points; \p percents are the
/// levels (ascending, the baseline first).
SpeedupAnalysis analyzeSpeedups(const std::vector<std::string> &names,
                                const std::vector<std::string> &files,
                                const std::vector<unsigned> &percents,
                                const std::vector<SpeedupPoint> &points,
                                const AnalysisSettings &settings);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SPEEDUP_ANALYSIS_H
