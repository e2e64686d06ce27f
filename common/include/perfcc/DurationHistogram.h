//===- DurationHistogram.h - durations counted for percentiles -*- C++ -*-===//
//
// A log-linear histogram of durations (8 sub-buckets per power of two, so a
// percentile is within 6.25% of the true value): fixed size, no allocation,
// one increment per value. The runtime's summary and perfctl's recovered
// summaries (perfctl trace recover) count with it, so their p50 and p99 mean
// the same. Plain data: zero-initialized memory is an empty histogram.
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

} // namespace perfcc

#endif // PERFCC_DURATIONHISTOGRAM_H
