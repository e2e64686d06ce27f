// The sweep's analysis on runs a real GPU program made: examples/cuda/
// stalls.cpp swept on an H100 (test/gpu/cuda_causal_ground_truth.sh, kept in
// test/gpu/fixtures/h100-2026-11-26). Its measured runs are analysed again
// here, by today's code, and must still give the answers that the program's
// real variants, run beside the sweep on that machine, showed true:
// prepare_batch (the GPU idle while it runs) on the critical path, its gain
// at half the work within 2 points of the real +8.1%; hidden_work (behind a
// 2 ms kernel) off it, with about 1 ms of slack a call (its real gain at half
// the work: +0.4%).
#include "SweepJsonRuns.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace perfcc::perfctl {
namespace {

const std::string Fixtures =
    PERFCC_GPU_FIXTURES "/h100-2026-11-26/cuda_stalls.";

nlohmann::json load(const std::string &name) {
  nlohmann::json doc;
  std::ifstream(Fixtures + name) >> doc;
  return doc;
}

struct Analysed {
  SweepAnalysis analysis;
  const GroupAnalysis *group(const std::string &name) const {
    for (const GroupAnalysis &g : analysis.groups)
      if (g.name == name)
        return &g;
    return nullptr;
  }
};

Analysed analyseAgain() { return {analyseAt50(load("sweep.json"))}; }

double predictedAt50(const GroupAnalysis &g) {
  for (const Extrapolation &e : g.extrapolations)
    if (e.percent == 50 && e.valid)
      return e.gainPercent.value;
  ADD_FAILURE() << g.name << ": no prediction at 50%";
  return 1e9;
}

TEST(SweepOnGpuRuns, TheRealVariantsSaidWhatTheFixtureExpects) {
  nlohmann::json real = load("real.json");
  EXPECT_NEAR(real["gains"]["prepare"]["gain_percent"].get<double>(), 8.1,
              0.05);
  EXPECT_NEAR(real["gains"]["hidden"]["gain_percent"].get<double>(), 0.4, 0.05);
}

TEST(SweepOnGpuRuns, TheHostFunctionTheGpuWaitsOnIsOnTheCriticalPath) {
  Analysed a = analyseAgain();
  const GroupAnalysis *g = a.group("prepare");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->shape, Shape::Linear) << g->evidence.front();
  EXPECT_NEAR(predictedAt50(*g), 8.1, 2.0);
}

TEST(SweepOnGpuRuns, TheHostFunctionHiddenBehindAKernelHasSlack) {
  Analysed a = analyseAgain();
  const GroupAnalysis *g = a.group("hidden");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->shape, Shape::Threshold) << g->evidence.front();
  // 2 ms kernel, 1 ms of host work beside it: about 1 ms of slack a call.
  EXPECT_GT(g->slackNsPerCall, 0.7e6);
  EXPECT_LT(g->slackNsPerCall, 1.1e6);
  EXPECT_NEAR(predictedAt50(*g), 0.4, 2.0);
  ASSERT_FALSE(a.analysis.ranking.empty());
  EXPECT_EQ(a.analysis.groups[a.analysis.ranking.front()].name, "prepare");
}

} // namespace
} // namespace perfcc::perfctl
