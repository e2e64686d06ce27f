// engine/cpu/bandwidth_sampler.h - the machine's read bandwidth, sampled
// while a test runs.
//
// A bound measured once, before a test, is the machine of that moment. On a
// VM whose host others share, the read bandwidth moves by half within
// seconds (a 2-vCPU AMD EPYC Zen 4: 30 to 52 GB/s from one second to the
// next, 2026-11-28), so a decode that ran in a slow spell read "65% of the
// bound" and the same binary a minute later "106%". engine-bench therefore
// also takes short read-only passes between a test's steps and judges the
// test against what they read: the bound of the seconds the test ran in.
#pragma once

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/huge_pages.h"
#include "engine/cpu/thread_pool.h"

#include <cstdint>

namespace engine {

class BandwidthSampler {
public:
  /// A buffer of max(128 MiB, 4 × the last-level cache) in 2 MiB pages where
  /// transparent huge pages allow them, each of the pool's threads its own
  /// slice, first touched by it. The pool should be the engine's own
  /// (CpuModelRunner::threads()), whose workers are on their cores between
  /// steps: the passes then run where the kernels run.
  /// `buffer_bytes` > 0 sets the buffer's size instead (rounded down to
  /// 2 MiB a thread, at least 2 MiB a thread).
  BandwidthSampler(ThreadPool &pool, Isa isa, int64_t buffer_bytes = 0);

  /// One read-only pass over the buffer on all the pool's threads (a few
  /// milliseconds), added to the totals; returns its rate in bytes a
  /// second. Throws engine::Error if the pass read wrong values.
  double sample();
  /// Forgets the samples taken so far.
  void reset() { bytes_ = 0, seconds_ = 0, samples_ = 0; }

  /// The bytes of all samples since reset() over their time (so a sample
  /// weighs by its length, as a test's tokens do): 0 before any.
  double bytes_per_s() const { return seconds_ > 0 ? bytes_ / seconds_ : 0; }
  int samples() const { return samples_; }
  int64_t buffer_bytes() const { return slice_ * pool_.size(); }

private:
  ThreadPool &pool_;
  Isa isa_;
  int64_t slice_ = 0;
  HugePageBuffer buffer_;
  double bytes_ = 0, seconds_ = 0;
  int samples_ = 0;
};

} // namespace engine
