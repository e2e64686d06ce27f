//===- perfrt_speedup.cpp - virtual speedups and the blocking rules -------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_speedup.h"

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_gpu_attach.h"
#include "perfrt_record.h"

#include <immintrin.h>

namespace perfrt {

SpeedupState gSpeedup;

namespace {

// A running slot's value: 0 outside a selected call, else SlotTaken | the
// tick its call's own work would have begun at had it never blocked, or,
// while the call is blocked on another thread, SlotTaken | SlotPaused | the
// work done so far.
constexpr uint64_t SlotTaken = uint64_t(1) << 62;
constexpr uint64_t SlotPaused = uint64_t(1) << 63;
constexpr uint64_t SlotTicks = SlotTaken - 1;
// ThreadState::speedupSlot when every slot was owned: the thread adds its
// delay at exit only.
constexpr uint32_t SpeedupNoSlot = ~0u;

std::atomic<uint64_t> *slotOf(const ThreadState *t) {
  if (!t->speedupSlot || t->speedupSlot == SpeedupNoSlot)
    return nullptr;
  return &gSpeedup.running[t->speedupSlot - 1].value;
}

/// Own work done so far by the call in a running slot holding \p v.
uint64_t workSoFar(uint64_t v, uint64_t now) {
  if (v & SlotPaused)
    return v & SlotTicks;
  uint64_t began = v & SlotTicks;
  return now > began ? now - began : 0;
}

/// The delay the selected calls running at \p now (0: read the clock if one
/// runs) have accrued, other than \p self (slot + 1, or 0).
uint64_t accruedByRunning(uint32_t self, uint64_t now) {
  uint32_t high = gSpeedup.runningHigh.load(std::memory_order_acquire);
  uint64_t work = 0;
  for (uint32_t i = 0; i < high; ++i) {
    uint64_t v = gSpeedup.running[i].value.load(std::memory_order_acquire);
    if (!v || i + 1 == self)
      continue;
    if (!now)
      now = nowTicks();
    work += workSoFar(v, now);
  }
  return work * gSpeedup.percent / 100;
}

/// Gives \p t a running slot for the rest of its life, if one is free.
void ownSlot(ThreadState *t) {
  for (uint32_t i = 0; i < SpeedupRunningSlots; ++i) {
    uint32_t expected = 0;
    if (gSpeedup.running[i].owned.load(std::memory_order_relaxed) == 0 &&
        gSpeedup.running[i].owned.compare_exchange_strong(
            expected, 1, std::memory_order_acq_rel)) {
      t->speedupSlot = i + 1;
      uint32_t high = gSpeedup.runningHigh.load(std::memory_order_relaxed);
      while (high < i + 1 && !gSpeedup.runningHigh.compare_exchange_weak(
                                 high, i + 1, std::memory_order_release,
                                 std::memory_order_relaxed)) {
      }
      return;
    }
  }
  t->speedupSlot = SpeedupNoSlot;
}

} // namespace

void speedupInit(const Flags &flags) {
  gSpeedup.on = flags.speedupPercent != 0;
  gSpeedup.percent = flags.speedupPercent;
}

void speedupEnterSelected(ThreadState *t, uint64_t now) {
  if (t->selectedDepth++ == 0) {
    t->selectedStart = now;
    t->selectedBlockedAtStart = t->locks.blockedTicks;
    if (!t->speedupSlot)
      ownSlot(t);
    if (std::atomic<uint64_t> *slot = slotOf(t); slot && inWindow(now))
      slot->store(SlotTaken | (now & SlotTicks), std::memory_order_release);
  }
}

void speedupExitSelected(ThreadState *t, uint64_t now) {
  if (t->selectedDepth == 0 || --t->selectedDepth != 0)
    return;
  // Free the slot before the delay joins the global count: a reader in
  // between sees neither and pays the difference later; one that saw both
  // would pay it twice, which cannot be taken back.
  if (std::atomic<uint64_t> *slot = slotOf(t))
    slot->store(0, std::memory_order_release);
  if (!inWindow(now))
    return;
  // Its own work only: the time it sat blocked on a mutex another thread
  // held, or on a condition another thread signals, is that thread's to
  // speed up (perfrt_locks.h). Sleeps and I/O stay its own.
  uint64_t spent = now > t->selectedStart ? now - t->selectedStart : 0;
  uint64_t blocked = t->locks.blockedTicks - t->selectedBlockedAtStart;
  spent = spent > blocked ? spent - blocked : 0;
  uint64_t delay = spent * gSpeedup.percent / 100;
  gSpeedup.globalTicks.fetch_add(delay, std::memory_order_relaxed);
  gSpeedup.insertedTicks.fetch_add(delay, std::memory_order_relaxed);
  t->localDelayTicks += delay; // this thread ran "faster": it owes nothing
}

uint64_t speedupOwedTotal(uint64_t now) {
  return gSpeedup.globalTicks.load(std::memory_order_relaxed) +
         accruedByRunning(0, now);
}

namespace {
/// Spins \p ticks of pause on \p t and counts them paid, by it and in all.
void spinPaid(ThreadState *t, uint64_t ticks) {
  spinTicks(ticks);
  t->speedupPaidTicks += ticks;
  gSpeedup.paidTicks.fetch_add(ticks, std::memory_order_relaxed);
}

// Why the pause lasts until the thread is level with the total, not just
// what it owed when it began: the pause stands for this thread running
// slower while a selected call ran elsewhere, so it must end level, or the
// thread reaches what follows (a lock, a queue) ahead of the faster
// program's order. A probe in the middle of a selected call owes what
// accrued so far, and while it pays, the call runs on and accrues the pause
// times the percentage: paid once, the thread was short by that share (at
// 50% it took contention's ticket lock when the faster poller would have
// been first, and the loss read -9% for a real -12%). So the pause reads the
// total as it spins, and ends when the time it took reaches what is owed by
// then. Calls accruing as fast as it pays (two at 50%) would never let it
// end level: past what it owed at the start, it stops when the total has
// grown by as much as it paused, and pays the rest at the next point.
/// Pauses \p t until it is level with the total at the time (\p now, 0:
/// read the clock, then as it runs on); returns the total it ended level
/// with.
uint64_t payUpToNow(ThreadState *t, uint64_t now) {
  uint64_t total = speedupOwedTotal(now);
  uint64_t local = t->localDelayTicks;
  if (total <= local)
    return total;
  uint64_t owedAtStart = total - local, totalAtStart = total;
  uint64_t coarse = spinPauseAboveTicks();
  uint64_t begin = nowTicks(), took = 0;
  // The caller's time and the clock's run at the same pace from here.
  uint64_t base = now ? now : begin;
  for (;;) {
    took = nowTicks() - begin;
    // Never read lower: a call moving its accrual from its running slot to
    // the global count shows neither in between, for as long as its thread
    // is preempted there.
    uint64_t read = gSpeedup.globalTicks.load(std::memory_order_relaxed) +
                    accruedByRunning(0, base + took);
    if (read > total)
      total = read;
    uint64_t owed = total > local ? total - local : 0;
    if (took >= owed)
      break;
    if (took >= owedAtStart && total - totalAtStart >= took)
      break;
    if (owed - took > coarse)
      _mm_pause();
  }
  // Level, it is credited what it owed (a preemption in the pause is not
  // a pause); stopped short, what it paused.
  uint64_t owed = total > local ? total - local : 0;
  uint64_t paid = took < owed ? took : owed;
  t->speedupPaidTicks += paid;
  gSpeedup.paidTicks.fetch_add(paid, std::memory_order_relaxed);
  t->localDelayTicks = local + paid;
  return total < t->localDelayTicks ? total : t->localDelayTicks;
}

/// \p total is what the threads released now may forgive.
void publishReleased(uint64_t total) {
  uint64_t seen = gSpeedup.releasedTicks.load(std::memory_order_relaxed);
  while (seen < total && !gSpeedup.releasedTicks.compare_exchange_weak(
                             seen, total, std::memory_order_relaxed)) {
  }
}
} // namespace

void speedupCatchUp(ThreadState *t, uint64_t now) {
  if (t->selectedDepth)
    return;
  payUpToNow(t, now);
}

uint64_t speedupOwed(const ThreadState *t, uint64_t now) {
  if (t->selectedDepth)
    return 0;
  uint64_t total = speedupOwedTotal(now);
  return total > t->localDelayTicks ? total - t->localDelayTicks : 0;
}

void speedupReleasing(uint64_t now) { publishReleased(speedupOwedTotal(now)); }

void speedupBeforeWaking(ThreadState *t) {
  // One total for both: outside a selected call it is what the thread ended
  // level with (its own running slot is empty); inside one it pays nothing.
  publishReleased(t->selectedDepth ? speedupOwedTotal() : payUpToNow(t, 0));
}

void speedupSkip(ThreadState *t, uint64_t now) {
  // A thread inside a selected call skips the other running calls'
  // accruals, not its own (accruedByRunning leaves its slot out); the
  // released total counted its own paused accrual, which it adds at exit.
  uint64_t total = gSpeedup.globalTicks.load(std::memory_order_relaxed) +
                   accruedByRunning(t->speedupSlot, now);
  uint64_t released = gSpeedup.releasedTicks.load(std::memory_order_relaxed);
  std::atomic<uint64_t> *slot = slotOf(t);
  uint64_t v = slot ? slot->load(std::memory_order_relaxed) : 0;
  if (v & SlotPaused) {
    uint64_t own = workSoFar(v, now) * gSpeedup.percent / 100;
    released = released > own ? released - own : 0;
  }
  if (released < total)
    total = released;
  if (total > t->localDelayTicks)
    t->localDelayTicks = total;
}

void speedupBeforeBlock(ThreadState *t, uint64_t now) {
  if (!t->selectedDepth)
    return speedupCatchUp(t, now);
  std::atomic<uint64_t> *slot = slotOf(t);
  uint64_t v = slot ? slot->load(std::memory_order_relaxed) : 0;
  if (v && !(v & SlotPaused))
    slot->store(SlotTaken | SlotPaused | workSoFar(v, now),
                std::memory_order_release);
}

void speedupAfterBlock(ThreadState *t, uint64_t now) {
  speedupSkip(t, now);
  std::atomic<uint64_t> *slot = slotOf(t);
  uint64_t v = slot ? slot->load(std::memory_order_relaxed) : 0;
  if (!(v & SlotPaused))
    return;
  uint64_t done = v & SlotTicks;
  uint64_t began = now > done ? now - done : 0;
  slot->store(SlotTaken | began, std::memory_order_release);
}

// Why a join defers what is owed before it: the pause stands for this
// thread's work before the join running slower, which would have reached
// the join later, and a join waits for another thread's end, which that
// lateness does not move: the thread resumes when the other ends either
// way, unless it would have arrived after that. So it resumes at the same
// moment as when it paid first, but paid first, the pause was spun while the
// joined threads ran, on a CPU they could need: examples/causal/two_threads'
// main thread starts two workers a round and joins them, and with long_task
// sped up 50% it spun 28 us a round (22 ms of a 0.9 s run) on the 2-vCPU
// VM; now 0.5-4 ms a run. (Condition waits still pay first: they give up a
// mutex, and what is owed is paid before a thread can wake another.)
uint64_t speedupBeforeJoin(ThreadState *t, uint64_t now) {
  if (t->selectedDepth) {
    speedupBeforeBlock(t, now);
    return 0;
  }
  uint64_t total = speedupOwedTotal(now);
  if (total <= t->localDelayTicks)
    return 0;
  uint64_t owed = total - t->localDelayTicks;
  t->localDelayTicks = total;
  return owed;
}

void speedupAfterJoin(ThreadState *t, uint64_t now, uint64_t owed,
                      uint64_t waited) {
  speedupAfterBlock(t, now);
  if (owed > waited)
    spinPaid(t, owed - waited); // counted in localDelayTicks before the join
}

void speedupThreadExit(ThreadState *t) {
  if (gSpeedup.on)
    speedupReleasing(); // its joiner waited for it
  if (!slotOf(t))
    return;
  gSpeedup.running[t->speedupSlot - 1].value.store(0,
                                                   std::memory_order_release);
  gSpeedup.running[t->speedupSlot - 1].owned.store(0,
                                                   std::memory_order_release);
  t->speedupSlot = 0;
}

void speedupAfterFork() {
  for (auto &slot : gSpeedup.running) {
    slot.value.store(0, std::memory_order_relaxed);
    slot.owned.store(0, std::memory_order_relaxed);
  }
  gSpeedup.runningHigh.store(0, std::memory_order_relaxed);
}

bool speedupSawGpu() { return libraryMapped("libcuda.so"); }

} // namespace perfrt

PERFRT_NOINSTR_END
