//===- SyntheticRuns.h - sweep runs whose answer is known ------*- C++ -*-===//
//
// The analysis and sizing tests build sweeps from a model: time per unit
// of work = model(delay per unit) * (1 + noise * N(0, 1)), seeded.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_TEST_UNIT_PERFCTL_SYNTHETICRUNS_H
#define PERFCC_TEST_UNIT_PERFCTL_SYNTHETICRUNS_H

#include "sweep/Analysis.h"

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace perfcc::perfctl {

/// Runs of one group at \p delays (ns per call, one call per unit of work):
/// time per unit = model(delay per unit) * (1 + noise * N(0,1)).
inline void addGroup(std::vector<RunPoint> &points, int group,
                     const std::vector<std::uint64_t> &delays, unsigned repeats,
                     const std::function<double(double)> &model, double noise,
                     std::uint64_t seed, double callsPerUnit = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  for (std::uint64_t delay : delays)
    for (unsigned r = 0; r < repeats; ++r) {
      RunPoint p;
      p.group = group;
      p.delayNs = delay;
      p.delayPerUnitNs = double(delay) * callsPerUnit;
      p.timePerUnitNs = model(p.delayPerUnitNs) * (1 + noise * normal(rng));
      p.throughput = 1e9 / p.timePerUnitNs;
      p.delayedCallsPerUnit = delay ? callsPerUnit : 0;
      p.targetNsPerCall = 40000 + double(delay);
      points.push_back(p);
    }
}

inline void addUnarmed(std::vector<RunPoint> &points, unsigned repeats,
                       double base, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  for (unsigned r = 0; r < repeats; ++r) {
    RunPoint p;
    p.timePerUnitNs = base * (1 + noise * normal(rng));
    p.throughput = 1e9 / p.timePerUnitNs;
    points.push_back(p);
  }
}

} // namespace perfcc::perfctl

#endif // PERFCC_TEST_UNIT_PERFCTL_SYNTHETICRUNS_H
