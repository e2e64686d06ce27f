//===- perfrt_progress.h - progress points: throughput and latency --------===//
//
// What a speed-bump experiment measures. A throughput point counts events
// ("token generated"); a latency point pairs a begin and an end ("request
// received" .. "request answered") and reports the mean latency by Little's
// law (time-averaged requests in flight over their completion rate), as Coz
// does, so no pairing of individual requests is needed. Counts are kept for
// the whole run and for the measurement window; the summary reports each
// point's count and rate in the window.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_PROGRESS_H
#define PERFRT_PROGRESS_H

#include <atomic>
#include <cstdint>

struct perf_progress_point;

namespace perfrt {

constexpr unsigned MaxProgressPoints = 256;

struct ProgressSlot {
  char name[64];
  uint32_t kind; // PERF_PROGRESS_THROUGHPUT or PERF_PROGRESS_LATENCY
  std::atomic<uint64_t> count, countInWindow; // hits, or ends for latency
  // Latency points, under `lock`.
  std::atomic<bool> lock;
  uint64_t begins;
  int64_t inFlight;
  uint64_t lastTicks;
  uint64_t inFlightTicks; // integral of inFlight over the window, in ticks
};

/// Point \p index (0-based) of progressPointCount().
ProgressSlot &progressSlot(unsigned index);
unsigned progressPointCount();

/// In a forked child: the parent's counts are not the child's.
void progressAfterFork();

} // namespace perfrt

#endif // PERFRT_PROGRESS_H
