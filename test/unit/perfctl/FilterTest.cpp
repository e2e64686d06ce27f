//===- FilterTest.cpp - perfctl filter's budget and its targets file ------===//
//
// Synthetic summaries whose probe cost is known: a thread whose tiny hot
// function would cost most of the run loses that function and keeps the
// rest; with two threads the worst one's functions go, the other's stay;
// the file written selects what the given targets did less what was left
// out, read back by the selection parser the build and the runtime use, in
// perfcc's syntax and in Score-P's.
//
//===----------------------------------------------------------------------===//
#include "filter/FilteredTargets.h"
#include "filter/OverheadBudget.h"

#include "perfcc/Selection.h"

#include <gtest/gtest.h>

using namespace perfcc::perfctl;
using nlohmann::json;

namespace {

/// A function of \p calls calls of \p meanNs each, all on thread \p tid.
json function(const std::string &name, std::uint64_t calls,
              std::uint64_t meanNs, std::int64_t tid = 1) {
  json times = {{"total", calls * meanNs}};
  return {{"name", name},
          {"mangled", "_Z" + std::to_string(name.size()) + name + "v"},
          {"calls", calls},
          {"inclusive_ns", times},
          {"threads", {{{"tid", tid}, {"calls", calls}}}}};
}

json summaryOf(std::uint64_t durationNs, json functions) {
  return {{"duration_ns", durationNs}, {"functions", std::move(functions)}};
}

/// 100 ms; tiny: 2M calls x 40 ns of probes = 80 ms; medium: 10,000 x 40
/// ns = 0.4 ms (0.4% of the run); main: one call.
json tinyMediumMain() {
  return summaryOf(100'000'000, {function("main", 1, 100'000'000),
                                 function("medium", 10'000, 2'000),
                                 function("tiny", 2'000'000, 5)});
}

bool excluded(const BudgetDecision &d, const std::string &name) {
  for (const BudgetFunction &f : d.functions)
    if (f.name == name)
      return f.excluded;
  ADD_FAILURE() << name << " not in the decision";
  return false;
}

} // namespace

TEST(OverheadBudget, TheTinyHotFunctionGoesTheRestStays) {
  json s = tinyMediumMain();
  BudgetDecision d = decideBudget(s, 40, 0.05);
  EXPECT_NEAR(d.overheadBefore, 0.804, 1e-3);
  EXPECT_TRUE(excluded(d, "tiny"));
  EXPECT_FALSE(excluded(d, "medium"));
  EXPECT_FALSE(excluded(d, "main"));
  // Of the run the kept probes will be in: the program's own 19.6 ms (100
  // ms less tiny's and medium's 80.4 ms of probes) and theirs.
  EXPECT_NEAR(d.overheadAfter, 400'040.0 / (19'599'960 + 400'040), 1e-9);
  EXPECT_EQ(d.callsAfter, 10'001u);
  EXPECT_NEAR(d.functions[2].probeShare, 2e6 / 2'010'001.0, 1e-9);
  // A tighter budget takes medium too; main, one call, never needs to go.
  d = decideBudget(s, 40, 0.001);
  EXPECT_TRUE(excluded(d, "medium"));
  EXPECT_FALSE(excluded(d, "main"));
  // Listed costliest first, whatever the summary's order.
  std::vector<const BudgetFunction *> leftOut = d.leftOut();
  ASSERT_EQ(leftOut.size(), 2u);
  EXPECT_EQ(leftOut[0]->name, "tiny");
  EXPECT_EQ(leftOut[1]->name, "medium");
  // A budget the run already meets leaves everything in.
  EXPECT_EQ(decideBudget(s, 40, 0.9).excludedCount(), 0u);
}

TEST(OverheadBudget, OnlyTheWorstThreadsFunctionsGo) {
  // Thread 1 pays 30 ms of probes in 100 ms (short), thread 2 only 3 ms
  // (shorter calls still, but few of them).
  json s = summaryOf(100'000'000, {function("busy", 750'000, 50, 1),
                                   function("rare", 75'000, 10, 2)});
  BudgetDecision d = decideBudget(s, 40, 0.05);
  EXPECT_TRUE(excluded(d, "busy"));
  EXPECT_FALSE(excluded(d, "rare"));
  EXPECT_NEAR(d.overheadAfter, 3e6 / (70e6 + 3e6), 1e-9);
}

TEST(OverheadBudget, TheBudgetIsOfTheRunTheProbesWillBeIn) {
  // Probes take 52 ms of a 100 ms run, so the program's own time is 48 ms.
  // Without hot, mid's 2 ms of probes are 4% of the 50 ms run they will be
  // in (2% of the measured run): within 5%, over 3%.
  json s = summaryOf(100'000'000, {function("hot", 1'250'000, 45),
                                   function("mid", 50'000, 1'000),
                                   function("main", 1, 100'000'000)});
  BudgetDecision d = decideBudget(s, 40, 0.05);
  EXPECT_NEAR(d.overheadBefore, 0.52, 1e-6);
  EXPECT_TRUE(excluded(d, "hot"));
  EXPECT_FALSE(excluded(d, "mid"));
  EXPECT_NEAR(d.overheadAfter, 2.00004e6 / 50e6, 1e-9); // own 47.99996 ms
  EXPECT_TRUE(excluded(decideBudget(s, 40, 0.03), "mid"));
}

TEST(OverheadBudget, AProbeCostAboveTheProgramsOwnLeavesItATenthOfTheRun) {
  // 3M calls at 40 ns would be 120 ms of a 100 ms run: the cost is above
  // what a pair cost this program. Its own time is taken as 10 ms, not
  // nothing, so medium's 0.4 ms (4% of 10.4 ms) stays.
  json s = summaryOf(100'000'000, {function("main", 1, 100'000'000),
                                   function("medium", 10'000, 2'000),
                                   function("tiny", 3'000'000, 5)});
  BudgetDecision d = decideBudget(s, 40, 0.05);
  EXPECT_TRUE(excluded(d, "tiny"));
  EXPECT_FALSE(excluded(d, "medium"));
  EXPECT_FALSE(excluded(d, "main"));
  EXPECT_NEAR(d.overheadAfter, 400'040.0 / (10e6 + 400'040), 1e-9);
}

TEST(OverheadBudget, AFunctionThatCannotMoveTheBudgetStays) {
  // rare's calls are the shortest, but its 20 calls cost 0.8 us of probes
  // in a 100 ms run: leaving it out could not bring the run under any
  // budget, so only hot goes.
  json s = summaryOf(100'000'000,
                     {function("hot", 1'000'000, 40), function("rare", 20, 5),
                      function("main", 1, 100'000'000)});
  BudgetDecision d = decideBudget(s, 40, 0.05);
  EXPECT_TRUE(excluded(d, "hot"));
  EXPECT_FALSE(excluded(d, "rare"));
  EXPECT_FALSE(excluded(d, "main"));
  // A budget so tight that rare's 0.8 us is no longer negligible takes it.
  EXPECT_TRUE(excluded(decideBudget(s, 40, 1e-6), "rare"));
}

TEST(OverheadBudget, ASummaryWithoutWhatItNeedsIsAnError) {
  EXPECT_THROW(decideBudget(json::array(), 40, 0.05), std::runtime_error);
  EXPECT_THROW(decideBudget(json{{"functions", json::array()}}, 40, 0.05),
               std::runtime_error);
  json noCalls = summaryOf(10, {{{"name", "f"}}});
  EXPECT_THROW(decideBudget(noCalls, 40, 0.05), std::runtime_error);
}

namespace {

perfcc::Verdict verdict(const perfcc::Selection &s, const std::string &name) {
  std::string mangled = "_Z" + std::to_string(name.size()) + name + "v";
  return s.match({name, mangled, "app.cpp"});
}

} // namespace

TEST(FilteredTargets, SelectsWhatTheTargetsDidLessWhatWasLeftOut) {
  json s = tinyMediumMain();
  BudgetDecision d = decideBudget(s, 40, 0.05);
  std::string error;
  for (const std::string &original :
       {std::string(""), std::string("main\nmedium\ntiny\nother*\n")}) {
    std::string text = filteredTargets(d, "# header\n", original, false);
    std::optional<perfcc::Selection> sel =
        perfcc::Selection::parse(text, "filtered", error);
    ASSERT_TRUE(sel) << error << "\n" << text;
    EXPECT_EQ(verdict(*sel, "tiny"), perfcc::Verdict::Exclude) << text;
    EXPECT_EQ(verdict(*sel, "medium"), perfcc::Verdict::Include);
    EXPECT_EQ(verdict(*sel, "main"), perfcc::Verdict::Include);
    EXPECT_NE(text.find("!_Z4tinyv # tiny: 2000000 calls, 5 ns a call, "
                        "99.5%"),
              std::string::npos)
        << text;
  }
  std::string scoreP = "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE "
                       "main medium tiny\nSCOREP_REGION_NAMES_END\n";
  std::string text = filteredTargets(d, "# header\n", scoreP, true);
  std::optional<perfcc::Selection> sel =
      perfcc::Selection::parse(text, "filtered", error);
  ASSERT_TRUE(sel) << error << "\n" << text;
  EXPECT_EQ(verdict(*sel, "tiny"), perfcc::Verdict::Exclude) << text;
  EXPECT_EQ(verdict(*sel, "medium"), perfcc::Verdict::Include) << text;
}
