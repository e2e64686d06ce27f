// The runtime's shadow stack driven with exact times and stack positions:
// inclusive and exclusive time, and the repairs that keep spans from
// overlapping when frames are skipped (longjmp, unprobed unwinding).
#include "perfrt_record.h"

#include <gtest/gtest.h>

using namespace perfrt;

namespace {

class ShadowStack : public ::testing::Test {
protected:
  void SetUp() override {
    threadsInit();
    t = createThreadState();
    ASSERT_NE(t, nullptr);
  }
  void TearDown() override { tlsState = nullptr; }

  void enter(uint32_t fn, uintptr_t sp, uint64_t time) {
    if (needsRepair(t, sp))
      closeAbandonedBelow(t, sp, time);
    Frame *f = pushFrame(t, fn, sp);
    ASSERT_NE(f, nullptr);
    f->start = time;
  }
  const FnStats &stats(uint32_t fn) { return *t->stats.find(fn); }

  ThreadState *t = nullptr;
};

TEST_F(ShadowStack, NestedCallsGetInclusiveAndExclusiveTime) {
  enter(1, 1000, 100);
  enter(2, 900, 110);
  exitFrame(t, 2, 140, 0);
  enter(2, 900, 150);
  exitFrame(t, 2, 160, 0);
  exitFrame(t, 1, 200, 0);
  EXPECT_EQ(t->depth, 0u);
  EXPECT_EQ(stats(1).calls, 1u);
  EXPECT_EQ(stats(1).inclTotal, 100u);
  EXPECT_EQ(stats(1).exclTotal, 60u);
  EXPECT_EQ(stats(2).calls, 2u);
  EXPECT_EQ(stats(2).inclTotal, 40u);
  EXPECT_EQ(stats(2).exclTotal, 40u);
  EXPECT_EQ(stats(2).inclMax, 30u);
}

TEST_F(ShadowStack, ExitOfOuterFrameClosesSkippedInnerFramesAsAbandoned) {
  enter(1, 1000, 0);
  enter(2, 900, 10);
  enter(3, 800, 20);
  exitFrame(t, 1, 50, 0); // 2 and 3 never exited (unprobed frame unwound)
  EXPECT_EQ(t->depth, 0u);
  EXPECT_EQ(t->abandonedFrames, 2u);
  EXPECT_EQ(stats(3).inclTotal, 30u);
  EXPECT_EQ(stats(2).inclTotal, 40u);
  EXPECT_EQ(stats(2).exclTotal, 10u);
  EXPECT_EQ(stats(1).inclTotal, 50u);
  EXPECT_EQ(stats(1).exclTotal, 10u);
}

TEST_F(ShadowStack, EntryAboveRecordedFramesClosesThemFirst) {
  // main (sp 1000) calls a (sp 900) calls b (sp 800); b longjmps back into
  // main, which then calls c from the same depth as a: a and b are dead.
  enter(1, 1000, 0);
  enter(2, 900, 10);
  enter(3, 800, 20);
  enter(4, 950, 30); // above b and a: they cannot be live
  EXPECT_EQ(t->depth, 2u);
  EXPECT_EQ(t->stack[0].fn, 1u);
  EXPECT_EQ(t->stack[1].fn, 4u);
  EXPECT_EQ(t->abandonedFrames, 2u);
  exitFrame(t, 4, 40, 0);
  exitFrame(t, 1, 50, 0);
  EXPECT_EQ(stats(2).inclTotal, 20u);
  EXPECT_EQ(stats(1).exclTotal, 50u - 20u - 10u);
}

TEST_F(ShadowStack, EntryAtTheSameStackPositionNests) {
  // An inlined callee's probes run in its caller's frame (early stage).
  enter(1, 1000, 0);
  enter(2, 1000, 5);
  EXPECT_EQ(t->depth, 2u);
  exitFrame(t, 2, 7, 0);
  exitFrame(t, 1, 9, 0);
  EXPECT_EQ(t->abandonedFrames, 0u);
  EXPECT_EQ(stats(1).exclTotal, 7u);
}

TEST_F(ShadowStack, ResyncClosesFramesAboveTheLiveOne) {
  enter(1, 1000, 0); // calls setjmp
  enter(2, 900, 10);
  enter(3, 800, 20);
  EXPECT_TRUE(closeAbove(t, 1, 30)); // setjmp returned again in 1
  EXPECT_EQ(t->depth, 1u);
  EXPECT_EQ(t->abandonedFrames, 2u);
}

TEST_F(ShadowStack, RepairAlsoForgetsCallsBeyondMaxDepth) {
  // A longjmp from deeper than MaxDepth back into a recorded frame: the
  // unrecorded calls are gone too, so later exits must match again.
  for (uint32_t i = 0; i < MaxDepth + 5; ++i)
    if (Frame *f = pushFrame(t, i < 2 ? i + 1 : 3, 100000 - i))
      f->start = i;
  EXPECT_EQ(t->overflow, 5u);
  EXPECT_TRUE(closeAbove(t, 2, 1000)); // setjmp returned in function 2
  EXPECT_EQ(t->overflow, 0u);
  EXPECT_EQ(t->depth, 2u);
  exitFrame(t, 2, 1100, 0);
  exitFrame(t, 1, 1200, 0);
  EXPECT_EQ(t->depth, 0u);
  EXPECT_EQ(t->unmatchedExits, 0u);
}

TEST_F(ShadowStack, ExitWithoutEntryIsCountedAndIgnored) {
  enter(1, 1000, 0);
  exitFrame(t, 7, 10, 0);
  EXPECT_EQ(t->unmatchedExits, 1u);
  EXPECT_EQ(t->depth, 1u);
}

TEST_F(ShadowStack, CallsBeyondMaxDepthAreCountedNotRecorded) {
  for (uint32_t i = 0; i < MaxDepth + 3; ++i) {
    if (needsRepair(t, 100000 - i))
      closeAbandonedBelow(t, 100000 - i, i);
    if (Frame *f = pushFrame(t, 1, 100000 - i))
      f->start = i;
  }
  EXPECT_EQ(t->depth, MaxDepth);
  EXPECT_EQ(t->depthOverflows, 3u);
  for (uint32_t i = 0; i < MaxDepth + 3; ++i)
    exitFrame(t, 1, 10000, 0);
  EXPECT_EQ(t->depth, 0u);
  EXPECT_EQ(stats(1).calls, MaxDepth);
  EXPECT_EQ(t->unmatchedExits, 0u);
}

} // namespace

// Trace mode: each completed call becomes one span in the thread's chunk, in
// the order the calls end, through the same storeSpan the exit probe's fast
// path uses.
TEST_F(ShadowStack, TraceModeAppendsOneSpanPerCallAsItEnds) {
  spansInit(4 * ChunkBytes);
  // No writer: it would start with the first chunk (in trace mode it also
  // checkpoints live chunks) and read gRt.trace while this test resets it.
  spansStopWriter(false);
  gRt.trace = gRt.spans = true;
  enter(1, 1000, 0);
  enter(2, 900, 10);
  exitFrame(t, 2, 30, SpanUnwind);
  exitFrame(t, 1, 50, 0);
  gRt.trace = gRt.spans = false;
  ASSERT_NE(t->chunk, nullptr);
  ASSERT_EQ(t->chunk->count, 2u);
  const SpanRecord &inner = t->chunk->records[0], &outer = t->chunk->records[1];
  EXPECT_EQ(inner.fn, 2u);
  EXPECT_EQ(inner.start, 10u);
  EXPECT_EQ(inner.end, 30u);
  EXPECT_EQ(inner.exclusive, 20u);
  EXPECT_EQ(inner.flags, uint32_t(SpanUnwind));
  EXPECT_EQ(outer.fn, 1u);
  EXPECT_EQ(outer.start, 0u);
  EXPECT_EQ(outer.end, 50u);
  EXPECT_EQ(outer.exclusive, 30u); // 50 minus the inner call's 20
  EXPECT_EQ(outer.flags, 0u);
}

// The recursion guard the probes take: held while the runtime records,
// refused (and left clear) once recording stopped, and a thread already
// inside a probe (a signal handler interrupting it) gets no state.
TEST_F(ShadowStack, GuardIsTakenOnlyWhileRecordingAndNeverTwice) {
  tlsState = t;
  gRt.recording.store(true);
  ASSERT_TRUE(enterGuard(t));
  EXPECT_EQ(t->busy.load(), 1u);
  EXPECT_EQ(acquire(), nullptr); // already inside a probe
  release(t);
  EXPECT_EQ(t->busy.load(), 0u);
  EXPECT_EQ(acquire(), t);
  release(t);
  gRt.recording.store(false);
  EXPECT_FALSE(enterGuard(t));
  EXPECT_EQ(t->busy.load(), 0u);
  EXPECT_EQ(acquire(), nullptr);
}

TEST_F(ShadowStack, CpuTimeIsChargedInclusiveAndLessTheCallees) {
  // PERFCC_CPU_TIME: the entry probes set each call's CPU clock beside its
  // frame (t->cpuStack) and the exit probe the thread's (t->cpuNow). 1 runs
  // 100 ns of wall time and 70 of CPU; its callee 2 slept: 40 ns of wall, 5
  // of CPU. Less the clock read's own cost (gThreadCpuReadNs) from each call.
  uint64_t saved = gThreadCpuReadNs;
  gThreadCpuReadNs = 1;
  gRt.flags.cpuTime = true;
  auto enterCpu = [&](uint32_t fn, uintptr_t sp, uint64_t time, uint64_t cpu) {
    enter(fn, sp, time);
    t->cpuStack[t->depth - 1] = CpuFrame{cpu, 0};
  };
  enterCpu(1, 1000, 100, 5000);
  enterCpu(2, 900, 110, 5010);
  t->cpuNow = 5016;
  exitFrame(t, 2, 150, 0);
  t->cpuNow = 5071;
  exitFrame(t, 1, 200, 0);
  EXPECT_EQ(stats(2).cpuCalls, 1u);
  EXPECT_EQ(stats(2).cpuInclNs, 5u);
  EXPECT_EQ(stats(2).cpuExclNs, 5u);
  EXPECT_EQ(stats(1).cpuInclNs, 70u);
  EXPECT_EQ(stats(1).cpuExclNs, 65u);
  // A frame closed by a repair gets no CPU time: no probe read the clock at
  // its end.
  enterCpu(3, 1000, 300, 6000);
  enterCpu(4, 900, 310, 6001);
  t->cpuNow = 6100;
  exitFrame(t, 3, 400, 0); // 4 was abandoned
  EXPECT_EQ(stats(4).cpuCalls, 0u);
  EXPECT_EQ(stats(4).calls, 1u);
  EXPECT_EQ(stats(3).cpuInclNs, 99u);
  gRt.flags.cpuTime = false;
  gThreadCpuReadNs = saved;
}
