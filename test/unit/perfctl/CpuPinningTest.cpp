//===- CpuPinningTest.cpp - perfctl sweep --pin's CPU lists ---------------===//
#include "run/CpuPinning.h"

#include <gtest/gtest.h>

#include <sched.h>

using namespace perfcc::perfctl;

TEST(CpuList, ParsesRangesAndListsSortedWithoutDuplicates) {
  std::string error;
  auto cpus = parseCpuList("0", error);
  ASSERT_TRUE(cpus) << error;
  EXPECT_EQ(*cpus, std::vector<int>{0});
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  if (CPU_ISSET(1, &allowed)) {
    cpus = parseCpuList("1,0-1,0", error);
    ASSERT_TRUE(cpus) << error;
    EXPECT_EQ(*cpus, (std::vector<int>{0, 1}));
  }
  EXPECT_EQ(formatCpuList({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(formatCpuList({3}), "3");
}

TEST(CpuList, RejectsWhatItCannotUseNamingIt) {
  std::string error;
  for (const char *bad : {"", "x", "1-", "-1", "3-1", "0,,1", "0.5"}) {
    EXPECT_FALSE(parseCpuList(bad, error)) << bad;
    EXPECT_NE(error.find("is not a CPU list"), std::string::npos) << error;
  }
  EXPECT_FALSE(parseCpuList("1000", error));
  EXPECT_NE(error.find("CPU 1000 is not one this process may use"),
            std::string::npos)
      << error;
}

TEST(CpuList, ScopedAffinityPinsAndRestores) {
  cpu_set_t before, inside, after;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  {
    ScopedAffinity pinned({0});
    ASSERT_EQ(sched_getaffinity(0, sizeof inside, &inside), 0);
    EXPECT_EQ(CPU_COUNT(&inside), 1);
    EXPECT_TRUE(CPU_ISSET(0, &inside));
  }
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}
