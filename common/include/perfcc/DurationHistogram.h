//===- DurationHistogram.h - durations counted for percentiles -*- C++ -*-===//
//
// A log-linear histogram of durations (8 sub-buckets per power of two, so a
// percentile is within 6.25% of the true value): fixed size, no allocation,
// one increment per value; and FnStats, a function's calls and times with
// two of them. The runtime's summary and perfctl's recovered summaries
// (perfctl trace recover) count with them, so their figures mean the same.
// Plain data: zero-initialized memory is empty.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DURATIONHISTOGRAM_H
#define PERFCC_DURATIONHISTOGRAM_H

#include <cstdint>

namespace perfcc {

constexpr int HistSubBits = 3;
constexpr int HistSub = 1 << HistSubBits;
// Durations at or above 2^44 ticks (over an hour at 3 GHz) share the last
// bucket.
constexpr int HistMaxExp = 44;
constexpr int HistBuckets = (HistMaxExp - HistSubBits + 2) * HistSub;

/// Bucket of a duration in ticks.
inline int histBucket(uint64_t v) {
  if (v < uint64_t(HistSub))
    return int(v);
  int e = 63 - __builtin_clzll(v);
  if (e > HistMaxExp)
    return HistBuckets - 1;
  int sub = int(v >> (e - HistSubBits)) & (HistSub - 1);
  return (e - HistSubBits + 1) * HistSub + sub;
}

/// Midpoint of a bucket, in ticks: the value a percentile reports.
inline double histBucketMid(int b) {
  if (b < HistSub)
    return double(b);
  int e = b / HistSub + HistSubBits - 1;
  int sub = b % HistSub;
  double width = double(1ull << (e - HistSubBits));
  return double(uint64_t(HistSub + sub) << (e - HistSubBits)) + width / 2;
}

struct Histogram {
  uint32_t counts[HistBuckets];
  void add(uint64_t v) { ++counts[histBucket(v)]; }
  void merge(const Histogram &o) {
    for (int i = 0; i < HistBuckets; ++i)
      counts[i] += o.counts[i];
  }
  /// The value at quantile \p q (0..1) of \p total samples, in ticks.
  double quantile(double q, uint64_t total) const {
    if (!total)
      return 0;
    uint64_t rank = uint64_t(q * double(total - 1)) + 1, seen = 0;
    for (int i = 0; i < HistBuckets; ++i) {
      seen += counts[i];
      if (seen >= rank)
        return histBucketMid(i);
    }
    return histBucketMid(HistBuckets - 1);
  }
};

/// A function's calls and their inclusive and exclusive times (ticks): what
/// the summary reports per function and thread. Plain data: zero-initialized
/// memory is an empty FnStats.
struct FnStats {
  uint64_t calls;
  uint64_t inclTotal, exclTotal; // ticks
  uint64_t inclMax, exclMax;
  uint64_t inclMin, exclMin; // percentiles are clamped to [min, max]
  // The thread's CPU time in the calls that measured it (PERFCC_CPU_TIME),
  // in ns: inclusive and less the callees' (exclusive).
  uint64_t cpuCalls, cpuInclNs, cpuExclNs;
  Histogram incl, excl;

  void addCpu(uint64_t inclusiveNs, uint64_t exclusiveNs) {
    ++cpuCalls;
    cpuInclNs += inclusiveNs;
    cpuExclNs += exclusiveNs;
  }

  void add(uint64_t inclusive, uint64_t exclusive) {
    if (calls++ == 0 || inclusive < inclMin)
      inclMin = inclusive;
    if (calls == 1 || exclusive < exclMin)
      exclMin = exclusive;
    inclTotal += inclusive;
    exclTotal += exclusive;
    if (inclusive > inclMax)
      inclMax = inclusive;
    if (exclusive > exclMax)
      exclMax = exclusive;
    incl.add(inclusive);
    excl.add(exclusive);
  }
  void merge(const FnStats &o) {
    cpuCalls += o.cpuCalls;
    cpuInclNs += o.cpuInclNs;
    cpuExclNs += o.cpuExclNs;
    if (!o.calls)
      return;
    if (!calls || o.inclMin < inclMin)
      inclMin = o.inclMin;
    if (!calls || o.exclMin < exclMin)
      exclMin = o.exclMin;
    calls += o.calls;
    inclTotal += o.inclTotal;
    exclTotal += o.exclTotal;
    if (o.inclMax > inclMax)
      inclMax = o.inclMax;
    if (o.exclMax > exclMax)
      exclMax = o.exclMax;
    incl.merge(o.incl);
    excl.merge(o.excl);
  }
};

} // namespace perfcc

#endif // PERFCC_DURATIONHISTOGRAM_H
