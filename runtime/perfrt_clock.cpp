//===- perfrt_clock.cpp - choose and calibrate the clock ------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_clock.h"

#include <atomic>

#include <cpuid.h>
#include <cstdio>
#include <cstring>
#include <time.h>

namespace perfrt {

ClockState gClock;

namespace {

bool cpuHasInvariantTsc() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) || eax < 0x80000007)
    return false;
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return edx & (1u << 8);
}

// The kernel only keeps "tsc" as its clocksource after checking that the
// TSCs of all CPUs agree; that check is the one we trust.
bool kernelUsesTsc() {
  FILE *f = std::fopen(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f)
    return false;
  char buf[32] = {};
  bool tsc = std::fgets(buf, sizeof buf, f) && !std::strncmp(buf, "tsc", 3);
  std::fclose(f);
  return tsc;
}

// Reads the TSC and CLOCK_MONOTONIC as close together as possible: the pair
// with the shortest bracketing interval out of a few tries.
void readPair(uint64_t &tsc, uint64_t &mono) {
  uint64_t best = ~0ull;
  for (int i = 0; i < 5; ++i) {
    uint64_t a = __rdtsc();
    uint64_t m = monotonicNs();
    uint64_t b = __rdtsc();
    if (b - a < best) {
      best = b - a;
      tsc = a + (b - a) / 2;
      mono = m;
    }
  }
}

constexpr uint32_t MaxSamples = 64;
constexpr uint64_t SampleEveryNs = 100000000;
struct Pair {
  uint64_t tsc, mono;
};
Pair samples[MaxSamples];
std::atomic<uint32_t> sampleCount{0};
std::atomic<uint64_t> lastSampleNs{0};

} // namespace

void clockSample() {
  if (!gClock.useTsc)
    return; // CLOCK_MONOTONIC itself: no conversion to check
  uint64_t now = monotonicNs();
  uint64_t last = lastSampleNs.load(std::memory_order_relaxed);
  if (now - last < SampleEveryNs ||
      !lastSampleNs.compare_exchange_strong(last, now))
    return;
  uint32_t i = sampleCount.load(std::memory_order_relaxed);
  if (i >= MaxSamples)
    return;
  Pair p;
  readPair(p.tsc, p.mono);
  samples[i] = p;
  sampleCount.store(i + 1, std::memory_order_release);
}

uint64_t clockFitMaxResidualNs(uint32_t &count) {
  count = sampleCount.load(std::memory_order_acquire);
  uint64_t worst = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t fit = ticksToNs(samples[i].tsc);
    uint64_t d =
        fit > samples[i].mono ? fit - samples[i].mono : samples[i].mono - fit;
    worst = d > worst ? d : worst;
  }
  return worst;
}

void clockInit(ClockChoice choice) {
  bool invariant = cpuHasInvariantTsc();
  bool kernel = kernelUsesTsc();
  switch (choice) {
  case ClockChoice::Tsc:
    gClock.useTsc = true;
    gClock.reason = "tsc (PERFCC_CLOCK=tsc)";
    break;
  case ClockChoice::Monotonic:
    gClock.useTsc = false;
    gClock.reason = "clock_gettime(CLOCK_MONOTONIC) (PERFCC_CLOCK=monotonic)";
    break;
  case ClockChoice::Auto:
    gClock.useTsc = invariant && kernel;
    gClock.reason = gClock.useTsc ? "tsc (invariant, kernel clocksource)"
                    : !invariant
                        ? "clock_gettime(CLOCK_MONOTONIC) (TSC not invariant)"
                        : "clock_gettime(CLOCK_MONOTONIC) (kernel does not "
                          "use the TSC)";
    break;
  }
  if (gClock.useTsc) {
    readPair(gClock.tsc0, gClock.mono0);
  } else {
    gClock.mono0 = monotonicNs();
    gClock.calibrated = true;
  }
}

void clockCalibrate() {
  if (gClock.calibrated)
    return;
  constexpr uint64_t MinBaselineNs = 20000000;
  uint64_t tsc, mono;
  readPair(tsc, mono);
  while (mono - gClock.mono0 < MinBaselineNs) {
    timespec pause{0, long(MinBaselineNs - (mono - gClock.mono0))};
    nanosleep(&pause, nullptr);
    readPair(tsc, mono);
  }
  gClock.nsPerTick = double(mono - gClock.mono0) / double(tsc - gClock.tsc0);
  gClock.calibrated = true;
}

uint64_t gThreadCpuReadNs = 0;

void threadCpuCalibrate() {
  uint64_t best = UINT64_MAX, last = threadCpuNs();
  for (int i = 0; i < 200; ++i) {
    uint64_t now = threadCpuNs();
    if (now > last && now - last < best)
      best = now - last;
    last = now;
  }
  // The clock may step coarser than a read (then no difference is seen).
  gThreadCpuReadNs = best == UINT64_MAX ? 0 : best;
}

} // namespace perfrt

PERFRT_NOINSTR_END
