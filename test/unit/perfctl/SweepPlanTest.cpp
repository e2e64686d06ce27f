//===- SweepPlanTest.cpp - delays, groups and the run order of a sweep ----===//
#include "sweep/Plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

using namespace perfcc::perfctl;

namespace {

std::uint64_t delayOk(const char *text) {
  std::string error;
  std::optional<std::uint64_t> ns = parseDelayNs(text, error);
  EXPECT_TRUE(ns.has_value()) << text << ": " << error;
  return ns.value_or(~0ull);
}

std::string delayError(const char *text) {
  std::string error;
  EXPECT_FALSE(parseDelayNs(text, error).has_value()) << text;
  return error;
}

/// A file in the test's temporary folder holding \p text.
std::string tempFile(const std::string &name, const std::string &text) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST(Delay, AcceptsEveryUnit) {
  EXPECT_EQ(delayOk("0"), 0u);
  EXPECT_EQ(delayOk("500"), 500u);
  EXPECT_EQ(delayOk("500ns"), 500u);
  EXPECT_EQ(delayOk("1us"), 1000u);
  EXPECT_EQ(delayOk("10us"), 10000u);
  EXPECT_EQ(delayOk("2.5us"), 2500u);
  EXPECT_EQ(delayOk("3\xC2\xB5s"), 3000u);
  EXPECT_EQ(delayOk("2ms"), 2000000u);
  EXPECT_EQ(delayOk("1s"), 1000000000u);
  EXPECT_EQ(delayOk(".5us"), 500u);
  EXPECT_EQ(delayOk("0us"), 0u);
}

TEST(Delay, RejectsWhatIsNotADelay) {
  EXPECT_NE(delayError("").find("empty"), std::string::npos);
  EXPECT_NE(delayError("-1us").find("'-1us' is not a delay"),
            std::string::npos);
  EXPECT_NE(delayError("10xs").find("unknown unit 'xs'"), std::string::npos);
  EXPECT_NE(delayError("1 us").find("unknown unit ' us'"), std::string::npos);
  EXPECT_NE(delayError("us").find("is not a delay"), std::string::npos);
  EXPECT_NE(delayError("\xC2\xB5s").find("is not a delay"), std::string::npos);
  EXPECT_NE(delayError("0.1ns").find("less than a nanosecond"),
            std::string::npos);
  EXPECT_NE(delayError("99999999s").find("longer than"), std::string::npos);
}

TEST(Delay, ListIsSortedWithoutDuplicates) {
  std::string error;
  auto list = parseDelayList("100us, 0,1us,10us,1000ns", error);
  ASSERT_TRUE(list) << error;
  EXPECT_EQ(*list, (std::vector<std::uint64_t>{0, 1000, 10000, 100000}));
  EXPECT_FALSE(parseDelayList("1us,,2us", error));
  EXPECT_NE(error.find("empty"), std::string::npos);
}

TEST(Delay, FormatIsExactAndParsesBack) {
  EXPECT_EQ(formatDelay(0), "0");
  EXPECT_EQ(formatDelay(500), "500ns");
  EXPECT_EQ(formatDelay(1000), "1us");
  EXPECT_EQ(formatDelay(2500), "2.5us");
  EXPECT_EQ(formatDelay(1001), "1.001us");
  EXPECT_EQ(formatDelay(2000000), "2ms");
  EXPECT_EQ(formatDelay(1500000000), "1.5s");
  for (std::uint64_t ns : {1ull, 999ull, 1234ull, 1234567ull, 7000000001ull}) {
    std::string error;
    EXPECT_EQ(parseDelayNs(formatDelay(ns), error), ns) << formatDelay(ns);
  }
  EXPECT_EQ(formatDuration(812), "812ns");
  EXPECT_EQ(formatDuration(1234), "1.23us");
  EXPECT_EQ(formatDuration(45600000), "45.6ms");
  EXPECT_EQ(formatDuration(-2000), "-2us");
}

TEST(Group, ParsesNameEqualsFile) {
  std::string error;
  auto group = parseGroup("kv-cache=targets/kv.targets", error);
  ASSERT_TRUE(group) << error;
  EXPECT_EQ(group->name, "kv-cache");
  EXPECT_EQ(group->file, "targets/kv.targets");
  EXPECT_FALSE(parseGroup("nofile", error));
  EXPECT_FALSE(parseGroup("=f", error));
  EXPECT_FALSE(parseGroup("n=", error));
  EXPECT_FALSE(parseGroup("a b=f", error));
  EXPECT_NE(error.find("letters, digits"), std::string::npos);
}

TEST(Group, TargetsFileNamesItsGroup) {
  EXPECT_EQ(groupForTargets("dir/consumer.targets").name, "consumer");
  EXPECT_EQ(groupForTargets("plain").name, "plain");
  EXPECT_EQ(groupForTargets(".hidden").name, ".hidden");
}

TEST(Group, ValidationUsesTheSelectionParser) {
  std::string error;
  std::string good = tempFile("good.targets", "consumer\n!consumer_tmp\n");
  EXPECT_TRUE(validateGroups({{"g", good}}, error)) << error;

  std::string empty = tempFile("empty.targets", "");
  EXPECT_FALSE(validateGroups({{"g", empty}}, error));
  EXPECT_EQ(error, empty + ": error: the targets file selects nothing (no "
                           "pattern to delay)");

  std::string comments = tempFile("comments.targets", "# nothing\n\n");
  EXPECT_FALSE(validateGroups({{"g", comments}}, error));
  EXPECT_NE(error.find("selects nothing"), std::string::npos);

  std::string onlyExcludes = tempFile("excl.targets", "!consumer\n");
  EXPECT_FALSE(validateGroups({{"g", onlyExcludes}}, error));

  std::string bad = tempFile("bad.targets", "a:b:c\n");
  EXPECT_FALSE(validateGroups({{"g", bad}}, error));
  EXPECT_EQ(error.rfind(bad + ":1:", 0), 0u) << error;

  EXPECT_FALSE(validateGroups({{"g", "/nonexistent/x.targets"}}, error));
  EXPECT_NE(error.find("cannot read targets file"), std::string::npos);

  EXPECT_FALSE(validateGroups({{"g", good}, {"g", good}}, error));
  EXPECT_EQ(error, "two groups are named 'g'");
}

TEST(Plan, EveryGroupDelayAndRepeatOnceAndTheControls) {
  SweepPlan plan = makePlan({{"a", "a.t"}, {"b", "b.t"}}, {1000, 10000}, 3, 7);
  EXPECT_EQ(plan.delays, (std::vector<std::uint64_t>{0, 1000, 10000}));
  ASSERT_EQ(plan.runs.size(), 2u * 3 * 3 + 3);
  std::map<std::tuple<int, std::uint64_t, unsigned>, int> seen;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun &run = plan.runs[i];
    EXPECT_EQ(run.index, i + 1);
    ++seen[{run.group, run.delayNs, run.repeat}];
    if (!run.armed())
      EXPECT_EQ(run.delayNs, 0u);
  }
  EXPECT_EQ(seen.size(), plan.runs.size());
  for (unsigned r = 1; r <= 3; ++r)
    EXPECT_EQ((seen[{-1, 0, r}]), 1);
}

// A slow stretch of the machine must not fall on a few runs of one level:
// each round runs every (group, delay) and a control once, and the next
// round begins only after it.
TEST(Plan, RunsComeInRoundsOfEveryLevelOnce) {
  std::vector<Group> groups = {{"a", "a.t"}, {"b", "b.t"}};
  for (SweepPlan plan : {makePlan(groups, {1000, 10000}, 6, 3),
                         makeSpeedupPlan(groups, {10, 30, 50}, 6, 3)}) {
    std::size_t perRound = plan.runs.size() / 6;
    ASSERT_EQ(perRound * 6, plan.runs.size());
    std::set<std::vector<std::tuple<int, std::uint64_t, unsigned>>> orders;
    for (std::size_t round = 0; round < 6; ++round) {
      std::vector<std::tuple<int, std::uint64_t, unsigned>> order;
      for (std::size_t i = round * perRound; i < (round + 1) * perRound; ++i) {
        const PlannedRun &run = plan.runs[i];
        EXPECT_EQ(run.repeat, round + 1) << describeRun(plan, run);
        order.push_back({run.group, run.delayNs, run.speedupPercent});
      }
      std::set<std::tuple<int, std::uint64_t, unsigned>> levels(order.begin(),
                                                                order.end());
      EXPECT_EQ(levels.size(), perRound); // each level once
      orders.insert(order);
    }
    EXPECT_GT(orders.size(), 1u); // each round in its own order
  }
}

TEST(Plan, OrderIsRandomButReproducible) {
  std::vector<Group> groups = {{"a", "a.t"}};
  auto order = [&](std::uint64_t seed) {
    std::vector<std::pair<int, std::uint64_t>> runs;
    for (const PlannedRun &run : makePlan(groups, {1, 2, 3}, 5, seed).runs)
      runs.push_back({run.group, run.delayNs});
    return runs;
  };
  EXPECT_EQ(order(1), order(1));
  EXPECT_NE(order(1), order(2));
  // Not grouped by delay: the largest delay is not all at the end.
  auto runs = order(1);
  auto firstBig =
      std::find(runs.begin(), runs.end(), std::pair<int, std::uint64_t>{0, 3});
  EXPECT_LT(firstBig - runs.begin(), 15);
}

TEST(Plan, DescribesRuns) {
  SweepPlan plan = makePlan({{"consumer", "c.t"}}, {10000}, 1, 1);
  PlannedRun armed{1, 0, 10000, 2}, control{2, -1, 0, 3};
  EXPECT_EQ(describeRun(plan, armed), "consumer, delay 10us, repeat 2");
  EXPECT_EQ(describeRun(plan, control), "unarmed control, repeat 3");
}

TEST(Speedup, PercentsAreWholeSortedWithoutZeroOrTheBaseline) {
  std::string error;
  EXPECT_EQ(parsePercentList("50, 10%,25,0,10", error),
            (std::vector<unsigned>{10, 25, 50}));
  EXPECT_EQ(parsePercentList("100", error), (std::vector<unsigned>{100}));
  EXPECT_EQ(parsePercentList("0", error), std::vector<unsigned>{});
  for (const char *bad : {"", "101", "2.5", "-5", "ten", "10,,20", "1000"}) {
    EXPECT_FALSE(parsePercentList(bad, error)) << bad;
    EXPECT_NE(error.find("is not a speedup"), std::string::npos) << error;
  }
  EXPECT_FALSE(parsePercentList("1,10", error));
  EXPECT_EQ(error, "1% is the baseline every speedup sweep runs; ask for 2% "
                   "or more");
}

TEST(Speedup, PlanRunsEveryGroupPercentAndRepeatWithBaselineAndControls) {
  SweepPlan plan =
      makeSpeedupPlan({{"a", "a.t"}, {"b", "b.t"}}, {25, 10}, 3, 7);
  EXPECT_TRUE(plan.speedup());
  EXPECT_EQ(plan.speedups, (std::vector<unsigned>{1, 10, 25}));
  EXPECT_TRUE(plan.delays.empty());
  ASSERT_EQ(plan.runs.size(), 2u * 3 * 3 + 3);
  std::map<std::tuple<int, unsigned, unsigned>, int> seen;
  for (const PlannedRun &run : plan.runs) {
    ++seen[{run.group, run.speedupPercent, run.repeat}];
    EXPECT_EQ(run.delayNs, 0u);
    EXPECT_EQ(run.speedupPercent == 0, !run.armed());
  }
  EXPECT_EQ(seen.size(), plan.runs.size());
  EXPECT_FALSE(makePlan({{"a", "a.t"}}, {1000}, 1, 1).speedup());
  PlannedRun baseline{1, 0, 0, 2, 1}, faster{2, 1, 0, 1, 25};
  EXPECT_EQ(describeRun(plan, baseline), "a, speedup 1% (baseline), repeat 2");
  EXPECT_EQ(describeRun(plan, faster), "b, speedup 25%, repeat 1");
}
