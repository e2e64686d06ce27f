//===- CallRateModel.h - a loss that works through a call rate --*- C++ -*-===//
//
// A function whose speedup slows the program down (a negative slope) rarely
// hurts by its own length: it hurts by how often it runs. A watcher whose
// every check publishes a version the worker must rebuild for, a poller whose
// every pass takes the lock the worker needs: each call costs the rest of the
// program about the same, and a faster function makes more calls per unit of
// work. A line through time per unit against delay sees only the slow-down
// side of that curve, which flattens (the calls thin out), and predicts
// about half of the loss a real speedup causes (docs/methodology.md).
//
// The model fits two lines the speed bumps do vary, over the group's armed
// runs:
//   time per unit  T = Tc + h * r     (r: the function's calls per unit;
//                                      h: what a call costs the rest)
//   time per call  Q = T / r = Q0 + g * x   (x: delay delivered per call;
//                                      Q: the wall time between calls)
// and combines them: a call s ns shorter makes Q = Q0 - g*s, and T solves
// T = Tc + h*T/Q, so T(s) = Tc / (1 - h / (Q0 - g*s)). The predicted gain
// is T(0) / T(s) - 1, with a bootstrap interval over the runs (resampled
// within each delay level).
//
// It applies when the runs show it: the calls per unit fell by a tenth or
// more as the function was slowed, the time per unit rose with the calls
// per unit (h's interval above 0), and the time between calls grew with the
// delay (g > 0). Its limit: it holds each call's harm fixed, where a real
// program may coalesce the harm of calls that come faster than it can
// react (several versions, one rebuild), or whose harm saturates (a fair
// lock the faster caller cannot take twice while the worker waits); the
// line's loss is then a lower bound and this model's an upper one, and the
// sweep's cross-check (CrossCheck.h) measures where between them it lies.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_CALLRATEMODEL_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_CALLRATEMODEL_H

#include "sweep/Random.h"
#include "sweep/Statistics.h"

#include <cstddef>
#include <string>
#include <vector>

namespace perfcc::perfctl {

/// One armed run, as the model sees it.
struct CallRateRun {
  std::size_t level = 0;     ///< its delay level (0-based), for resampling
  double callsPerUnit = 0;   ///< the function's calls per unit of work
  double timePerUnitNs = 0;  ///< 1e9 / throughput
  double delayPerCallNs = 0; ///< delay delivered per call (0 unslowed)
};

struct CallRateModel {
  bool applies = false;
  /// Why it applies (the numbers), or why not.
  std::string why;
  LinearFit harm;   ///< time per unit on calls per unit
  LinearFit period; ///< time between calls on delay per call
  std::vector<CallRateRun> runs;
};

/// Fits the model to \p runs (armed, every level of one group, delay 0
/// included) at \p confidence.
CallRateModel fitCallRateModel(std::vector<CallRateRun> runs,
                               double confidence);

/// T(s) / T(0) by the fits: the time per unit of work if each call were
/// \p savedNs shorter, relative to today's; infinite where the model says
/// the program would stop (a call every h ns or more often).
double callRateTimeRatio(const LinearFit &harm, const LinearFit &period,
                         double savedNs);

/// The predicted throughput change, in %, of each call \p savedNs shorter,
/// with a bootstrap interval (\p resamples resamples of the runs within
/// their levels). A resample that says the program would stop counts as
/// -100%.
struct CallRateGain {
  double value = 0;
  Interval ci;
};
CallRateGain callRateGain(const CallRateModel &model, double savedNs,
                          double confidence, unsigned resamples, Rng &rng);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_CALLRATEMODEL_H
