//===- Statistics.cpp - the numerical methods of perfctl sweep ------------===//
#include "sweep/Statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfcc::perfctl {

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double Inf = std::numeric_limits<double>::infinity();

double quantileSorted(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return NaN;
  double position = q * double(sorted.size() - 1);
  std::size_t below = std::size_t(std::floor(position));
  std::size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - double(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

/// A resample of \p sample with replacement, into \p out.
void resample(const std::vector<double> &sample, std::vector<double> &out,
              Rng &rng) {
  out.resize(sample.size());
  for (double &value : out)
    value = sample[uniformIndex(rng, sample.size())];
}

/// Least squares of y on x: intercept, slope and residual sum of squares.
/// With no spread in x the slope is 0 and the intercept the mean.
struct Ols {
  double intercept = 0, slope = 0, sse = 0, meanX = 0, sxx = 0;
};
Ols ols(const std::vector<double> &x, const std::vector<double> &y) {
  Ols fit;
  std::size_t n = x.size();
  if (!n)
    return fit;
  double meanY = 0;
  for (std::size_t i = 0; i < n; ++i) {
    fit.meanX += x[i];
    meanY += y[i];
  }
  fit.meanX /= double(n);
  meanY /= double(n);
  double sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    fit.sxx += (x[i] - fit.meanX) * (x[i] - fit.meanX);
    sxy += (x[i] - fit.meanX) * (y[i] - meanY);
  }
  // Relative test: x values that differ only by rounding are no spread.
  if (fit.sxx > 1e-12 * (fit.meanX * fit.meanX + 1) * double(n))
    fit.slope = sxy / fit.sxx;
  else
    fit.sxx = 0;
  fit.intercept = meanY - fit.slope * fit.meanX;
  for (std::size_t i = 0; i < n; ++i) {
    double e = y[i] - fit.intercept - fit.slope * x[i];
    fit.sse += e * e;
  }
  return fit;
}

/// Regularized incomplete beta I_x(a, b), by Lentz's continued fraction.
double incompleteBeta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  if (x > (a + 1) / (a + b + 2))
    return 1 - incompleteBeta(b, a, 1 - x);
  double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                          a * std::log(x) + b * std::log1p(-x)) /
                 a;
  const double tiny = 1e-300;
  double f = 1, c = 1, d = 0;
  for (int i = 0; i <= 400; ++i) {
    int m = i / 2;
    double numerator;
    if (i == 0)
      numerator = 1;
    else if (i % 2 == 0)
      numerator = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else
      numerator =
          -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + numerator * d;
    d = std::fabs(d) < tiny ? tiny : d;
    d = 1 / d;
    c = 1 + numerator / c;
    c = std::fabs(c) < tiny ? tiny : c;
    double cd = c * d;
    f *= cd;
    if (std::fabs(1 - cd) < 1e-15)
      break;
  }
  return front * (f - 1);
}

} // namespace

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return quantileSorted(values, q);
}

double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

double mad(const std::vector<double> &values) {
  double center = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double value : values)
    deviations.push_back(std::fabs(value - center));
  return median(std::move(deviations));
}

Interval percentileInterval(std::vector<double> statistics, double confidence) {
  // Resamples whose statistic is undefined (NaN) carry no information.
  statistics.erase(std::remove_if(statistics.begin(), statistics.end(),
                                  [](double v) { return std::isnan(v); }),
                   statistics.end());
  if (statistics.empty())
    return {NaN, NaN};
  std::sort(statistics.begin(), statistics.end());
  double tail = (1 - confidence) / 2;
  return {quantileSorted(statistics, tail),
          quantileSorted(statistics, 1 - tail)};
}

Interval bootstrapInterval(
    const std::vector<double> &sample,
    const std::function<double(const std::vector<double> &)> &statistic,
    double confidence, unsigned resamples, Rng &rng) {
  if (sample.empty())
    return {NaN, NaN};
  std::vector<double> statistics, draw;
  statistics.reserve(resamples);
  for (unsigned r = 0; r < resamples; ++r) {
    resample(sample, draw, rng);
    statistics.push_back(statistic(draw));
  }
  return percentileInterval(std::move(statistics), confidence);
}

Interval bootstrapInterval2(
    const std::vector<double> &a, const std::vector<double> &b,
    const std::function<double(const std::vector<double> &,
                               const std::vector<double> &)> &statistic,
    double confidence, unsigned resamples, Rng &rng) {
  if (a.empty() || b.empty())
    return {NaN, NaN};
  std::vector<double> statistics, drawA, drawB;
  statistics.reserve(resamples);
  for (unsigned r = 0; r < resamples; ++r) {
    resample(a, drawA, rng);
    resample(b, drawB, rng);
    statistics.push_back(statistic(drawA, drawB));
  }
  return percentileInterval(std::move(statistics), confidence);
}

double Summary::robustCV() const {
  return median != 0 ? 1.4826 * mad / std::fabs(median) : NaN;
}

Summary summarize(const std::vector<double> &values, double confidence,
                  unsigned resamples, Rng &rng) {
  Summary s;
  s.n = values.size();
  if (values.empty()) {
    s.median = s.q1 = s.q3 = s.iqr = s.mad = NaN;
    s.medianCI = {NaN, NaN};
    return s;
  }
  s.median = median(values);
  s.q1 = quantile(values, 0.25);
  s.q3 = quantile(values, 0.75);
  s.iqr = s.q3 - s.q1;
  s.mad = mad(values);
  s.medianCI = bootstrapInterval(
      values, [](const std::vector<double> &v) { return median(v); },
      confidence, resamples, rng);
  return s;
}

double studentTCdf(double t, double df) {
  // Near 0 through P(|T| < t), in the tails through P(|T| > t): each form
  // keeps its incomplete beta argument away from 1, where doubles lose it.
  double t2 = t * t;
  if (t2 < df) {
    double central = 0.5 * incompleteBeta(0.5, df / 2, t2 / (df + t2));
    return t > 0 ? 0.5 + central : 0.5 - central;
  }
  double tail = 0.5 * incompleteBeta(df / 2, 0.5, df / (df + t2));
  return t > 0 ? 1 - tail : tail;
}

double studentTQuantile(double p, double df) {
  if (p <= 0)
    return -Inf;
  if (p >= 1)
    return Inf;
  double lo = -1, hi = 1;
  while (studentTCdf(lo, df) > p)
    lo *= 2;
  while (studentTCdf(hi, df) < p)
    hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + std::fabs(lo)); ++i) {
    double mid = (lo + hi) / 2;
    (studentTCdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

LinearFit fitLinear(const std::vector<double> &x, const std::vector<double> &y,
                    double confidence) {
  LinearFit fit;
  fit.n = x.size();
  Ols o = ols(x, y);
  fit.intercept = o.intercept;
  fit.slope = o.slope;
  fit.sse = o.sse;
  if (fit.n < 3 || o.sxx == 0) {
    fit.slopeCI = {NaN, NaN};
    fit.slopeSE = NaN;
    return fit;
  }
  double meanY = 0, sst = 0;
  for (double v : y)
    meanY += v;
  meanY /= double(fit.n);
  for (double v : y)
    sst += (v - meanY) * (v - meanY);
  fit.r2 = sst > 0 ? 1 - o.sse / sst : 1;
  // HC3 (MacKinnon and White 1985): each squared residual inflated by its
  // leverage, so a noisier large-delay level cannot make the slope look
  // more certain than it is.
  double variance = 0;
  for (std::size_t i = 0; i < fit.n; ++i) {
    double dx = x[i] - o.meanX;
    double leverage = 1.0 / double(fit.n) + dx * dx / o.sxx;
    double e = y[i] - o.intercept - o.slope * x[i];
    double scaled = leverage < 1 - 1e-9 ? e / (1 - leverage) : 0;
    variance += dx * dx * scaled * scaled;
  }
  variance /= o.sxx * o.sxx;
  fit.slopeSE = std::sqrt(variance);
  double t = studentTQuantile((1 + confidence) / 2, double(fit.n - 2));
  fit.slopeCI = {fit.slope - t * fit.slopeSE, fit.slope + t * fit.slopeSE};
  fit.ok = true;
  return fit;
}

std::vector<double> kneeGrid(const std::vector<double> &levels,
                             unsigned steps) {
  std::vector<double> knees;
  if (levels.size() < 3)
    return knees;
  for (std::size_t j = 0; j + 2 < levels.size(); ++j)
    for (unsigned s = 0; s < steps; ++s)
      knees.push_back(levels[j] +
                      (levels[j + 1] - levels[j]) * double(s) / steps);
  knees.push_back(levels[levels.size() - 2]);
  return knees;
}

HingeFit fitHinge(const std::vector<double> &x, const std::vector<double> &y,
                  const std::vector<double> &knees) {
  HingeFit best;
  best.sse = Inf;
  std::vector<double> z(x.size());
  for (double knee : knees) {
    for (std::size_t i = 0; i < x.size(); ++i)
      z[i] = std::max(0.0, x[i] - knee);
    Ols o = ols(z, y);
    // Ties keep the smaller knee: the simpler reading of the same fit.
    if (o.sse < best.sse * (1 - 1e-12)) {
      best.knee = knee;
      best.intercept = o.intercept;
      best.slope = o.slope;
      best.sse = o.sse;
      best.ok = true;
    }
  }
  return best;
}

namespace {

/// Total sum of squares of \p y around its mean.
double totalSumOfSquares(const std::vector<double> &y) {
  double mean = 0, sst = 0;
  for (double v : y)
    mean += v;
  mean /= double(y.size());
  for (double v : y)
    sst += (v - mean) * (v - mean);
  return sst;
}

/// The F statistic of one extra parameter (the knee). Residuals below
/// rounding (relative to the total sum of squares \p sst) count as 0, so
/// exact data does not turn rounding noise into significance.
double fStatistic(double sseLine, double sseHinge, std::size_t n, double sst) {
  double rounding = 1e-12 * sst + 1e-300;
  if (sseHinge <= rounding)
    return sseLine - sseHinge > rounding ? Inf : 0;
  return (sseLine - sseHinge) / (sseHinge / double(n - 3));
}

} // namespace

HingeTest testHinge(const std::vector<double> &x, const std::vector<double> &y,
                    const std::vector<std::size_t> &level,
                    const std::vector<double> &levels, double confidence,
                    unsigned resamples, Rng &rng) {
  HingeTest test;
  test.kneeCI = test.slopeCI = {NaN, NaN};
  std::size_t n = x.size();
  std::vector<double> knees = kneeGrid(levels);
  if (knees.empty() || n < 4)
    return test;
  Ols line = ols(x, y);
  test.fit = fitHinge(x, y, knees);
  test.fStatistic = fStatistic(line.sse, test.fit.sse, n, totalSumOfSquares(y));

  // Wild bootstrap (Rademacher weights) under the null "it is a line": the
  // knee is chosen by search, so the F statistic does not follow an F
  // distribution (Davies' problem); the bootstrap gives its null
  // distribution, and the random signs keep each run's own noise level.
  std::vector<double> fitted(n), residual(n), ystar(n);
  for (std::size_t i = 0; i < n; ++i) {
    fitted[i] = line.intercept + line.slope * x[i];
    residual[i] = y[i] - fitted[i];
  }
  unsigned asLarge = 0;
  for (unsigned r = 0; r < resamples; ++r) {
    for (std::size_t i = 0; i < n; ++i)
      ystar[i] = fitted[i] + residual[i] * rademacher(rng);
    double f = fStatistic(ols(x, ystar).sse, fitHinge(x, ystar, knees).sse, n,
                          totalSumOfSquares(ystar));
    if (f >= test.fStatistic)
      ++asLarge;
  }
  test.pValue = (1.0 + asLarge) / (1.0 + resamples);

  // The knee's and the slope's intervals: resample runs within each delay
  // level, so every resample has the same design.
  std::vector<std::vector<std::size_t>> byLevel(levels.size());
  for (std::size_t i = 0; i < n; ++i)
    byLevel[level[i]].push_back(i);
  std::vector<double> xs(n), ys(n), kneeStats, slopeStats;
  for (unsigned r = 0; r < resamples; ++r) {
    std::size_t at = 0;
    for (const std::vector<std::size_t> &members : byLevel)
      for (std::size_t k = 0; k < members.size(); ++k) {
        std::size_t pick = members[uniformIndex(rng, members.size())];
        xs[at] = x[pick];
        ys[at++] = y[pick];
      }
    HingeFit fit = fitHinge(xs, ys, knees);
    kneeStats.push_back(fit.knee);
    slopeStats.push_back(fit.slope);
  }
  test.kneeCI = percentileInterval(std::move(kneeStats), confidence);
  test.slopeCI = percentileInterval(std::move(slopeStats), confidence);
  test.ok = true;
  return test;
}

} // namespace perfcc::perfctl
