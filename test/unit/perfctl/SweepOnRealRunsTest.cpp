// The sweep's analysis on runs a real program made on this project's CPU
// machines: examples/causal/two_threads.cpp swept as
// test/lit/perfctl/ground-truth/ground-truth-two-threads.test does (short
// and long groups, --extrapolate 50%), six sweeps on the 2-vCPU AMD EPYC
// Zen 4 VM on 2026-11-29, each with its real variants' runs measured before
// and after it (test/unit/perfctl/fixtures/two-threads-2026-11-29). Their
// measured runs are analysed again here, by today's code, and each answer
// must fit the real gains measured beside it: long_task on the critical path
// (+68 to +77% at half the work), short_task about nothing (-0.4% to +3.1%).
// In four of the six, the time rose before short_task's knee (0.15-0.34 of
// each delay): the line through all its runs has a slope near 0.75 and
// would have promised +9% (CI read "linear, +9.2%" three times from such a
// curve, against a real +1.9%); it is a soft knee, slack, and its rise is the
// most a speedup would gain.
#include "SweepJsonRuns.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

namespace perfcc::perfctl {
namespace {

const std::string Fixtures =
    PERFCC_PERFCTL_FIXTURES "/two-threads-2026-11-29/sweep-";

struct Sweep {
  SweepAnalysis analysis;
  /// Each variant's real gain at half the work, in percent: the median over
  /// rounds of the round's rate against the base's, both files pooled (as
  /// scripts/real_answer.py and sweepcheck.py take it).
  std::map<std::string, double> realGain;
  const GroupAnalysis &group(const std::string &name) const {
    for (const GroupAnalysis &g : analysis.groups)
      if (g.name == name)
        return g;
    throw std::runtime_error("no group " + name);
  }
};

Sweep analyseAgain(int number) {
  nlohmann::json doc;
  std::ifstream(Fixtures + std::to_string(number) + ".json") >> doc;
  Sweep sweep{analyseAt50(doc), {}};
  std::vector<double> base;
  std::map<std::string, std::vector<double>> variants;
  for (const nlohmann::json &real : doc["real"]) {
    for (double rate : real["base_rates"])
      base.push_back(rate);
    for (const auto &[name, answer] : real["gains"].items())
      for (double rate : answer["rates"])
        variants[name].push_back(rate);
  }
  for (auto &[name, rates] : variants) {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < rates.size() && i < base.size(); ++i)
      ratios.push_back(rates[i] / base[i]);
    std::sort(ratios.begin(), ratios.end());
    std::size_t n = ratios.size();
    double median =
        n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
    sweep.realGain[name] = 100 * (median - 1);
  }
  return sweep;
}

const Extrapolation &at50(const GroupAnalysis &g) {
  for (const Extrapolation &e : g.extrapolations)
    if (e.percent == 50)
      return e;
  throw std::runtime_error(g.name + ": nothing asked at 50%");
}

class TwoThreadsSweep : public ::testing::TestWithParam<int> {};

TEST_P(TwoThreadsSweep, LongTaskIsOnThePathAndPredictedNearItsRealGain) {
  Sweep sweep = analyseAgain(GetParam());
  const GroupAnalysis &g = sweep.group("long");
  EXPECT_EQ(g.shape, Shape::Linear) << g.verdict;
  const Extrapolation &e = at50(g);
  ASSERT_TRUE(e.valid) << e.note;
  // Within a tenth of itself: the real answer beside these sweeps moved
  // between +68 and +77%.
  double real = sweep.realGain["long"];
  EXPECT_NEAR(e.gainPercent.value, real, 0.1 * real);
}

TEST_P(TwoThreadsSweep, ShortTaskIsSlackAndPredictedNearItsGain) {
  Sweep sweep = analyseAgain(GetParam());
  const GroupAnalysis &g = sweep.group("short");
  double real = sweep.realGain["short"];
  ASSERT_EQ(g.shape, Shape::Threshold)
      << g.verdict << "; " << g.evidence.back();
  const Extrapolation &e = at50(g);
  ASSERT_TRUE(e.valid) << e.note;
  EXPECT_NEAR(e.gainPercent.value, real, 3.5) << g.verdict;
  if (g.slopeSource == SlopeSource::BeforeKnee) {
    // A soft knee: its rise is the most, and holds the real gain (give or
    // take the real answer's own spread, a point and a half).
    EXPECT_GE(e.gainPercent.ci.hi + 1.5, real) << e.note;
    // What the line would have promised: far more than the real gain.
    double y0 = g.unarmedTimePerUnitNs;
    double saved = g.line.slope * e.usedNs * g.callsPerUnit;
    EXPECT_GT(100 * (y0 / (y0 - saved) - 1), real + 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TwoThreadsSweep, ::testing::Range(1, 7));

} // namespace
} // namespace perfcc::perfctl
