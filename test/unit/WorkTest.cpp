// perf_work's totals (perfrt_work.h): summed per function id on any thread,
// exact under concurrent reports; charged by perfcc_work to the innermost
// frame of the calling thread's shadow stack, or counted as unattributed
// outside any recorded call; cleared in a forked child.
#include "perfrt_record.h"
#include "perfrt_runtime.h"
#include "perfrt_work.h"

#include "perf/perf.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace perfrt;

namespace {

class Work : public ::testing::Test {
protected:
  void SetUp() override {
    workAfterFork(); // each test from zero
    gRt.state.store(Lifecycle::Running);
  }
  void TearDown() override {
    gRt.state.store(Lifecycle::New);
    tlsState = nullptr;
  }
};

TEST_F(Work, TotalsAreSummedPerFunction) {
  workAdd(5, 10, 20);
  workAdd(5, 1, 2);
  workAdd(5000, 7, 0); // another page of ids
  WorkTotals w;
  ASSERT_TRUE(workOf(5, w));
  EXPECT_EQ(w.bytes, 11u);
  EXPECT_EQ(w.flops, 22u);
  EXPECT_EQ(w.reports, 2u);
  ASSERT_TRUE(workOf(5000, w));
  EXPECT_EQ(w.bytes, 7u);
  EXPECT_FALSE(workOf(6, w));
  EXPECT_FALSE(workOf(0, w));
  EXPECT_FALSE(workOf(4000000000u, w));
  // An id no table can hold is unattributed rather than lost.
  workAdd(4000000000u, 3, 3);
  EXPECT_EQ(workUnattributed().bytes, 3u);
}

TEST_F(Work, ConcurrentReportsAreExact) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([] {
      for (int n = 0; n < 20000; ++n)
        workAdd(70000, 3, 5); // a page no thread has mapped yet
    });
  for (std::thread &t : threads)
    t.join();
  WorkTotals w;
  ASSERT_TRUE(workOf(70000, w));
  EXPECT_EQ(w.bytes, 4u * 20000 * 3);
  EXPECT_EQ(w.flops, 4u * 20000 * 5);
  EXPECT_EQ(w.reports, 4u * 20000);
}

TEST_F(Work, ReportsGoToTheInnermostRecordedCall) {
  threadsInit();
  ThreadState *t = createThreadState();
  ASSERT_NE(t, nullptr);
  perfcc_work(1, 1); // no frame open: unattributed
  ASSERT_NE(pushFrame(t, 7, 1000), nullptr);
  perfcc_work(100, 0);
  ASSERT_NE(pushFrame(t, 8, 900), nullptr);
  perfcc_work(10, 40);
  perfcc_work(10, 40);
  exitFrame(t, 8, 50, 0);
  perfcc_work(5, 0);
  exitFrame(t, 7, 60, 0);
  WorkTotals outer, inner;
  ASSERT_TRUE(workOf(7, outer));
  ASSERT_TRUE(workOf(8, inner));
  EXPECT_EQ(outer.bytes, 105u);
  EXPECT_EQ(outer.reports, 2u);
  EXPECT_EQ(inner.bytes, 20u);
  EXPECT_EQ(inner.flops, 80u);
  EXPECT_EQ(workUnattributed().reports, 1u);
  // Before start-up and after the output is written, reports are ignored.
  gRt.state.store(Lifecycle::Finished);
  perfcc_work(1000, 1000);
  EXPECT_EQ(workUnattributed().reports, 1u);
}

TEST_F(Work, AForkedChildStartsFromZero) {
  workAdd(9, 1, 1);
  workAdd(0, 1, 1);
  workAfterFork();
  WorkTotals w;
  EXPECT_FALSE(workOf(9, w));
  EXPECT_EQ(workUnattributed().reports, 0u);
}

} // namespace
