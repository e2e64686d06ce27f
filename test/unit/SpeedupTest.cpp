// Virtual speedup accounting (Coz's mode): the thread in a selected function
// is credited, the others owe the same and pay it, and a woken thread skips
// what accrued while it slept.
#include "perfrt_clock.h"
#include "perfrt_locks.h"
#include "perfrt_runtime.h"
#include "perfrt_speedup.h"
#include "perfrt_thread.h"

#include "perf/perf.h"

#include <gtest/gtest.h>

#include <atomic>
#include <dlfcn.h>
#include <pthread.h>
#include <thread>
#include <time.h>

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
    gSpeedup.releasedTicks = 0;
    speedupAfterFork(); // every running slot free: the states below are new
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
  speedupReleasing(4000); // a unlocks the mutex b waits for
  speedupSkip(b);
  EXPECT_EQ(b->localDelayTicks, 2000u);
  speedupCatchUp(b);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 0u);
}

TEST_F(Speedup, AThreadAboutToWakeAnotherPaysThenPublishes) {
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 4000); // 2000 owed
  speedupBeforeWaking(b);       // b unlocks: pays, and the waiter may forgive
  EXPECT_EQ(gSpeedup.paidTicks.load(), 2000u);
  EXPECT_EQ(gSpeedup.releasedTicks.load(), 2000u);
  speedupEnterSelected(a, 5000);
  speedupBeforeWaking(a); // inside its own call: pays nothing, publishes
  EXPECT_EQ(gSpeedup.paidTicks.load(), 2000u);
  EXPECT_GE(gSpeedup.releasedTicks.load(), 2000u);
}

// The thread that released a waiter runs on while the kernel wakes it, here
// in a selected call: the waiter forgives what was owed at the release, and
// pays what accrued after it (forgiven, it read as a gain: lock_handoff's
// lock-free encode_record, docs/methodology.md).
TEST_F(Speedup, AWokenThreadPaysWhatAccruedAfterItsRelease) {
  speedupEnterSelected(a, 0);
  speedupReleasing(1000); // a's call has accrued 500 by the release
  speedupSkip(b, 3000);   // b runs again at 3000: 1500 accrued by then
  EXPECT_EQ(b->localDelayTicks, 500u);
  speedupExitSelected(a, 4000);
  speedupCatchUp(b, 5000);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 1500u);
}

TEST_F(Speedup, AWokenSelectedCallForgivesNotItsOwnAccrual) {
  speedupEnterSelected(b, 0);
  speedupBeforeBlock(b, 1000); // 500 of its own accrued, then blocked
  speedupReleasing(6000);      // the release counts b's 500 too
  b->locks.blockedTicks += 5000;
  speedupAfterBlock(b, 6000);
  EXPECT_EQ(b->localDelayTicks, 0u); // nothing else accrued
  speedupExitSelected(b, 7000);      // its own 1000: credited once
  EXPECT_EQ(b->localDelayTicks, 1000u);
  EXPECT_EQ(gSpeedup.globalTicks.load(), 1000u);
}

// The pause stands for "the other threads ran slower while f ran": it
// accrues while the selected call runs, so a thread whose probe falls in the
// middle of it pays what accrued so far and what accrues while it pays, and
// the rest later, never twice. (The times are the test's, moved on by what
// b's pause took: a little over what it paid, or much more if preempted.)
TEST_F(Speedup, DelayAccruesWhileTheSelectedCallRuns) {
  speedupEnterSelected(a, 1000000);
  speedupCatchUp(b, 3000000); // a has run 2 ms: 1 ms owed so far
  uint64_t atProbe = b->localDelayTicks;
  EXPECT_GE(atProbe, 2000000u - 1000u); // and about 1 ms more while it paid
  uint64_t end = 1000000 + 2 * atProbe + 2000000;
  speedupExitSelected(a, end); // 1 ms more than b paid
  EXPECT_EQ(gSpeedup.globalTicks.load(), atProbe + 1000000);
  speedupCatchUp(b, end);
  EXPECT_EQ(b->localDelayTicks, atProbe + 1000000);
  EXPECT_EQ(gSpeedup.paidTicks.load(), atProbe + 1000000);
}

// Paid once, the pause left the thread short by what accrued while it ran,
// and it reached what followed (a lock) ahead of the faster program's order
// (examples/causal/contention's poll_stats, docs/methodology.md). The test
// runs the clock for real: 20 ms of pause.
TEST_F(Speedup, APauseEndsLevelWithACallStillRunning) {
  uint64_t now = nowTicks();
  uint64_t ms = gClock.useTsc ? uint64_t(1e6 / gClock.nsPerTick) : 1000000;
  speedupEnterSelected(a, now - 20 * ms);
  speedupCatchUp(b, now); // 10 ms owed, and 5 more while paying them, ...
  EXPECT_GE(b->localDelayTicks, 20 * ms - ms / 1000);
  EXPECT_LE(b->localDelayTicks, speedupOwedTotal());
  speedupExitSelected(a, nowTicks());
}

// Two selected calls running at 50% accrue as fast as a pause is paid: it is
// paid once, and what accrued meanwhile at the next point.
TEST_F(Speedup, APauseIsPaidOnceWhenItCannotEndLevel) {
  ThreadState *c = createThreadState();
  ASSERT_TRUE(c);
  speedupEnterSelected(a, 0);
  speedupEnterSelected(c, 0);
  speedupCatchUp(b, 2000); // 1000 + 1000, and as much again while it pays
  uint64_t paid = b->localDelayTicks;
  EXPECT_GE(paid, 2000u);
  EXPECT_LT(paid, speedupOwedTotal(2000 + paid)); // not level
  EXPECT_EQ(gSpeedup.paidTicks.load(), paid);
}

TEST_F(Speedup, ABlockedSelectedCallStopsAccruing) {
  speedupEnterSelected(a, 0);
  speedupBeforeBlock(a, 1000); // 1000 ticks of its own work, then blocked
  speedupCatchUp(b, 5000);     // nothing accrues while it pays
  EXPECT_EQ(b->localDelayTicks, 500u);
  a->locks.blockedTicks += 8000; // what the interposer adds on waking
  speedupAfterBlock(a, 9000);
  EXPECT_EQ(speedupOwedTotal(10000), 1000u); // 1000 + 1000 of own work
  speedupExitSelected(a, 10000);
  EXPECT_EQ(gSpeedup.globalTicks.load(), 1000u);
  speedupCatchUp(b, 11000);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 1000u);
}

TEST_F(Speedup, AThreadBornDuringASelectedCallOwesOnlyWhatFollows) {
  speedupEnterSelected(a, 0);
  EXPECT_EQ(speedupOwedTotal(4000), 2000u);
  speedupExitSelected(a, 4000);
  EXPECT_EQ(speedupOwedTotal(4000), 2000u); // moved, not doubled
}

/// A wait the program declares (perf_wait_begin/end, perf_wake), through
/// the library's own entry points on thread b.
class DeclaredWait : public Speedup {
protected:
  void SetUp() override {
    Speedup::SetUp();
    locksInit(true);
    gRt.recording.store(true);
    tlsState = b;
  }
  void TearDown() override {
    gRt.recording.store(false);
    locksInit(false);
    Speedup::TearDown();
  }
};

TEST_F(DeclaredWait, SkipsWhatAccruedUntilTheWake) {
  perf_wait_begin();
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 4000); // 2000 owed by b
  speedupReleasing(4000);       // a's perf_wake
  perf_wait_end();
  EXPECT_EQ(b->localDelayTicks, 2000u); // forgiven, not paid
  EXPECT_EQ(gSpeedup.paidTicks.load(), 0u);
  EXPECT_GT(b->locks.blockedTicks, 0u);
}

TEST_F(DeclaredWait, PaysWhatAccruedAfterTheWake) {
  perf_wait_begin();
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 4000);
  speedupReleasing(4000);
  speedupEnterSelected(a, 5000);
  speedupExitSelected(a, 7000); // 1000 more, after the wake
  perf_wait_end();
  speedupCatchUp(b);
  EXPECT_EQ(gSpeedup.paidTicks.load(), 1000u);
}

TEST_F(DeclaredWait, PaysWhatItOwedBeforeTheWait) {
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 2000); // 1000 owed before b waits
  perf_wait_begin();
  EXPECT_EQ(gSpeedup.paidTicks.load(), 1000u);
  perf_wait_end();
}

TEST_F(DeclaredWait, NestedWaitsCountOnceAndAnUnmatchedEndIsIgnored) {
  perf_wait_end(); // its begin came before tracking: nothing to end
  EXPECT_EQ(b->locks.blockedTicks, 0u);
  perf_wait_begin();
  perf_wait_begin();
  perf_wait_end();
  EXPECT_EQ(b->locks.blockedTicks, 0u); // the outer wait still runs
  EXPECT_EQ(b->locks.waitDepth, 1u);
  perf_wait_end();
  EXPECT_EQ(b->locks.waitDepth, 0u);
}

TEST_F(DeclaredWait, AWakerPaysThenPublishes) {
  speedupEnterSelected(a, 0);
  speedupExitSelected(a, 2000);
  perf_wake(); // b wakes another: it pays the 1000 first
  EXPECT_EQ(gSpeedup.paidTicks.load(), 1000u);
  EXPECT_EQ(gSpeedup.releasedTicks.load(), 1000u);
}

TEST_F(DeclaredWait, DoesNothingWithoutAnExperiment) {
  locksInit(false);
  perf_wait_begin();
  EXPECT_EQ(b->locks.waitDepth, 0u);
  perf_wait_end();
  EXPECT_EQ(b->locks.blockedTicks, 0u);
}

/// The interposed mutex calls, on real threads: this test's own calls to
/// pthread_mutex_lock resolve to the runtime's (linked into the test).
class InterposedMutex : public DeclaredWait {};

static void sleepMs(long ms) {
  timespec ts{0, ms * 1000000};
  nanosleep(&ts, nullptr);
}

// A waiter woken while the thread that released it runs on in a selected
// call owes what accrued after the release when it gets the mutex. In the
// faster program it pays that first and reaches the mutex later, where the
// releaser may take it again ahead of it; so it gives the mutex up, pays
// and tries again. Held through its pause, it kept the releaser out:
// lock_convoy's prepare_local (docs/methodology.md#locks).
TEST_F(InterposedMutex, AWaiterWhoOwesGivesTheMutexUpWhileItPays) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  auto libcUnlock = reinterpret_cast<int (*)(pthread_mutex_t *)>(
      dlsym(RTLD_NEXT, "pthread_mutex_unlock"));
  ASSERT_NE(libcUnlock, nullptr);
  constexpr uint64_t Ms = 1000000; // ticks: this test's clock is in ns
  std::atomic<int> held{0};
  uint32_t releaserBlocked = ~0u;
  std::thread releaser([&] {
    tlsState = a;
    pthread_mutex_lock(&m);
    held.store(1);
    sleepMs(50); // the waiter blocks meanwhile
    // Released with nothing owed, then 100 ms accrued at once (a selected
    // call that began 200 ms ago), before the waiter can run: it owes them.
    speedupReleasing(nowTicks());
    speedupEnterSelected(a, nowTicks() - 200 * Ms);
    libcUnlock(&m);
    // The waiter has woken and pays its 100 ms. Wide margins both sides:
    // a wake-up on a loaded machine can take milliseconds.
    sleepMs(30);
    uint32_t before = a->locks.contendedLocks;
    pthread_mutex_lock(&m); // the faster program's order: taken first
    releaserBlocked = a->locks.contendedLocks - before;
    speedupExitSelected(a, nowTicks());
    pthread_mutex_unlock(&m);
  });
  while (!held.load())
    sleepMs(1);
  pthread_mutex_lock(&m);
  uint64_t paid = gSpeedup.paidTicks.load();
  pthread_mutex_unlock(&m);
  releaser.join();
  EXPECT_EQ(releaserBlocked, 0u);
  EXPECT_GE(paid, 100 * Ms);
  EXPECT_EQ(b->locks.contendedLocks, 1u); // one call, however many tries
}

// Nothing accrued after its release: the waiter keeps the mutex it got.
TEST_F(InterposedMutex, AWaiterWhoOwesNothingKeepsTheMutex) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<int> held{0};
  std::thread holder([&] {
    tlsState = a;
    pthread_mutex_lock(&m);
    held.store(1);
    sleepMs(10);
    pthread_mutex_unlock(&m);
  });
  while (!held.load())
    sleepMs(1);
  pthread_mutex_lock(&m);
  EXPECT_EQ(b->locks.held, 1u);
  pthread_mutex_unlock(&m);
  holder.join();
  EXPECT_EQ(gSpeedup.paidTicks.load(), 0u);
  EXPECT_EQ(b->locks.contendedLocks, 1u);
  EXPECT_EQ(b->locks.held, 0u);
}

} // namespace
