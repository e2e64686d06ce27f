//===- Statistics.h - the numerical methods of perfctl sweep ---*- C++ -*-===//
//
// Robust per-delay summaries (median, IQR, MAD, percentile-bootstrap interval
// of the median), ordinary least squares with heteroscedasticity-consistent
// (HC3) standard errors and a Student-t interval on the slope, and a hinge
// model (flat until a knee, then linear) fitted by grid search, with a wild
// bootstrap test of hinge against line and a stratified bootstrap of the
// knee. docs/perfctl.md explains why each was chosen.
//
// Everything random takes an Rng seeded by the caller, so results are
// reproducible.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_STATISTICS_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_STATISTICS_H

#include "sweep/Random.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace perfcc::perfctl {

/// A closed interval; both ends NaN when it could not be computed.
struct Interval {
  double lo = 0, hi = 0;
  bool contains(double x) const { return lo <= x && x <= hi; }
  double width() const { return hi - lo; }
};

/// The q-quantile (0..1) of \p values, interpolated linearly between order
/// statistics (Hyndman and Fan's type 7, R's default). NaN when empty.
double quantile(std::vector<double> values, double q);
double median(std::vector<double> values);
/// Median absolute deviation from the median (unscaled).
double mad(const std::vector<double> &values);

/// The (1-confidence)/2 and (1+confidence)/2 quantiles of \p statistics:
/// the percentile bootstrap interval.
Interval percentileInterval(std::vector<double> statistics, double confidence);

/// Percentile bootstrap interval of \p statistic over resamples (with
/// replacement, same size) of \p sample.
Interval
bootstrapInterval(const std::vector<double> &sample,
                  const std::function<double(const std::vector<double> &)> &,
                  double confidence, unsigned resamples, Rng &rng);

/// Percentile bootstrap interval of \p statistic(a, b) over independent
/// resamples of two samples (a ratio of medians, a difference, ...).
Interval bootstrapInterval2(
    const std::vector<double> &a, const std::vector<double> &b,
    const std::function<double(const std::vector<double> &,
                               const std::vector<double> &)> &statistic,
    double confidence, unsigned resamples, Rng &rng);

/// One sample's robust summary.
struct Summary {
  std::size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0, mad = 0;
  Interval medianCI; ///< percentile bootstrap of the median
  /// 1.4826 * MAD / |median|: the relative standard deviation a normal
  /// sample with this MAD would have, robust to outliers.
  double robustCV() const;
};
Summary summarize(const std::vector<double> &values, double confidence,
                  unsigned resamples, Rng &rng);

/// The p-quantile of Student's t distribution with \p df degrees of
/// freedom (bisection on the CDF, computed with the regularized incomplete
/// beta function). Accurate to about 1e-10.
double studentTQuantile(double p, double df);
/// P(T <= t) for Student's t with \p df degrees of freedom.
double studentTCdf(double t, double df);

/// y = intercept + slope * x by ordinary least squares.
struct LinearFit {
  std::size_t n = 0;
  double intercept = 0, slope = 0;
  double slopeSE = 0; ///< HC3 heteroscedasticity-consistent standard error
  Interval slopeCI;   ///< slope +- t(df = n-2) * slopeSE
  double sse = 0;     ///< residual sum of squares
  double r2 = 0;      ///< coefficient of determination
  bool ok = false;    ///< false with fewer than 3 points or no spread in x
};
LinearFit fitLinear(const std::vector<double> &x, const std::vector<double> &y,
                    double confidence);

/// y = intercept + slope * max(0, x - knee): flat until the knee, then a line.
struct HingeFit {
  double knee = 0, intercept = 0, slope = 0, sse = 0;
  bool ok = false;
};
/// The knees a hinge is tried at: \p levels (the distinct x positions,
/// ascending) from the first to the second-to-last, and \p steps points
/// between each neighbouring pair, so the line past the knee always rests on
/// at least two levels.
std::vector<double> kneeGrid(const std::vector<double> &levels,
                             unsigned steps = 16);
/// Least squares over \p knees (each knee's intercept and slope in closed
/// form); the knee with the smallest residual sum of squares wins.
HingeFit fitHinge(const std::vector<double> &x, const std::vector<double> &y,
                  const std::vector<double> &knees);

/// Does the hinge fit significantly better than the line, and where is the
/// knee?
struct HingeTest {
  HingeFit fit;
  double fStatistic = 0; ///< (SSE_line - SSE_hinge) / (SSE_hinge / (n - 3))
  double pValue = 1;     ///< wild bootstrap under the fitted line
  Interval kneeCI;       ///< stratified bootstrap, percentile
  Interval slopeCI;      ///< of the slope past the knee, same resamples
  bool ok = false;       ///< false with fewer than 3 levels or 4 points
};
/// \p level gives each point's delay level (0-based), by which the knee
/// bootstrap resamples (each level keeps its number of runs); \p levels are
/// the levels' x positions, ascending.
HingeTest testHinge(const std::vector<double> &x, const std::vector<double> &y,
                    const std::vector<std::size_t> &level,
                    const std::vector<double> &levels, double confidence,
                    unsigned resamples, Rng &rng);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_STATISTICS_H
