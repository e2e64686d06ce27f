//===- ReportJson.h - the JSON shapes perfctl's reports share ---*- C++ -*-===//
//
// sweep.json writes numbers that do not exist (NaN, infinities) as null,
// intervals as [lo, hi], estimates as {value, ci} and a sample's robust
// summary as {n, median, q1, q3, iqr, mad, median_ci}: the same shapes for
// the speed-bump and the virtual-speedup analyses. Keys stay in the order
// written (sweep.json is also read by people).
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_REPORTJSON_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_REPORTJSON_H

#include "sweep/Analysis.h"
#include "sweep/Statistics.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace perfcc::perfctl::report {

using json = nlohmann::ordered_json;

inline json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}
inline json interval(const Interval &i) { return {number(i.lo), number(i.hi)}; }
inline json estimate(const Estimate &e) {
  return {{"value", number(e.value)}, {"ci", interval(e.ci)}};
}
inline json summary(const Summary &s) {
  return {{"n", s.n},
          {"median", number(s.median)},
          {"q1", number(s.q1)},
          {"q3", number(s.q3)},
          {"iqr", number(s.iqr)},
          {"mad", number(s.mad)},
          {"median_ci", interval(s.medianCI)}};
}

/// A least-squares line; \p slopeKey names the slope in its units.
inline json line(const LinearFit &f, const char *slopeKey) {
  return {{"ok", f.ok},
          {"n", f.n},
          {"intercept_ns", number(f.intercept)},
          {slopeKey, number(f.slope)},
          {"slope_se_hc3", number(f.slopeSE)},
          {"slope_ci", interval(f.slopeCI)},
          {"r2", number(f.r2)},
          {"sse", number(f.sse)}};
}

} // namespace perfcc::perfctl::report

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_REPORTJSON_H
