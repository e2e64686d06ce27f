// Virtual speedup accounting (Coz's mode): the thread in a selected function
// is credited, the others owe the same and pay it, and a woken thread skips
// what accrued while it slept.
#include "perfrt_speedup.h"
#include "perfrt_thread.h"

#include <gtest/gtest.h>

using namespace perfrt;

namespace {

class Speedup : public ::testing::Test {
protected:
  void SetUp() override {
    threadsInit();
    gSpeedup.on = true;
    gSpeedup.percent = 50;
    gSpeedup.globalTicks = 0;
    gSpeedup.insertedTicks = 0;
    gSpeedup.paidTicks = 0;
    a = createThreadState();
    b = createThreadState();
    ASSERT_TRUE(a && b);
  }
  void TearDown() override {
    gSpeedup.on = false;
    tlsState = nullptr;
  }
  ThreadState *a = nullptr, *b = nullptr;
};

TEST_F(Speedup, TimeInASelectedFunctionIsOwedByEveryOtherThread) {
  speedupEnterSelected(a, 1000);
  speedupExitSelected(a, 3000); // 2000 ticks at 50%: 1000 owed
  EXPECT_EQ(gSpeedup.globalTicks.load(), 1000u);
  EXPECT_EQ(gSpeedup.insertedTicks.load(), 1000u);
  EXPECT_EQ(a->localDelayTicks, 1000u); // the faster thread owes nothing
  speedupCatchUp(a);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 0u);
  speedupCatchUp(b);
  EXPECT_EQ(b->localDelayTicks, 1000u);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 1000u);
}

TEST_F(Speedup, NestedSelectedCallsCountOnce) {
  speedupEnterSelected(a, 0);
  speedupEnterSelected(a, 100);
  speedupExitSelected(a, 200);
  EXPECT_EQ(gSpeedup.globalTicks.load(), 0u);
  speedupExitSelected(a, 400);
  EXPECT_EQ(gSpeedup.globalTicks.load(), 200u);
}

TEST_F(Speedup, AThreadInsideASelectedFunctionDoesNotPay) {
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 1000);
  speedupEnterSelected(b, 2000);
  speedupCatchUp(b);
  EXPECT_EQ(b->localDelayTicks, 0u);
  speedupExitSelected(b, 2600); // credited its own 300
  EXPECT_EQ(b->localDelayTicks, 300u);
  speedupCatchUp(b); // now pays what a's call left owing
  EXPECT_EQ(b->localDelayTicks, gSpeedup.globalTicks.load());
}

TEST_F(Speedup, AWokenThreadSkipsWhatAccruedWhileItWaited) {
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 4000);
  speedupSkip(b);
  EXPECT_EQ(b->localDelayTicks, 2000u);
  speedupCatchUp(b);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 0u);
}

} // namespace
