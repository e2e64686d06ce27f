// engine/cpu/bandwidth_sampler.cpp - read-only passes between a test's steps
// (see bandwidth_sampler.h).
#include "engine/cpu/bandwidth_sampler.h"

#include "engine/cpu/machine_ceilings.h"
#include "engine/error.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace engine {

BandwidthSampler::BandwidthSampler(ThreadPool &pool, Isa isa,
                                   int64_t buffer_bytes)
    : pool_(pool), isa_(isa) {
  constexpr int64_t kPage = int64_t(2) << 20;
  const int64_t total =
      buffer_bytes > 0
          ? buffer_bytes
          : std::max(int64_t(128) << 20, 4 * last_level_cache_bytes());
  slice_ = std::max(kPage, total / pool.size() / kPage * kPage);
  buffer_ = HugePageBuffer(size_t(slice_) * pool.size());
  float *base = reinterpret_cast<float *>(buffer_.data());
  pool_.run([&](int t, int) {
    std::fill(base + t * (slice_ / 4), base + (t + 1) * (slice_ / 4), 1.0f);
  });
}

double BandwidthSampler::sample() {
  const float *base = reinterpret_cast<const float *>(buffer_.data());
  const size_t n = size_t(pool_.size());
  std::vector<double> sums(n, 0), seconds(n, 0);
  // Each thread times its own slice: a worker woken from its sleep starts
  // some microseconds after the caller, and that is not the memory's time.
  pool_.run([&](int t, int) {
    const auto t0 = std::chrono::steady_clock::now();
    sums[size_t(t)] =
        cpu_detail::read_sum(base + t * (slice_ / 4), slice_, isa_);
    seconds[size_t(t)] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
  });
  for (double sum : sums)
    if (sum != double(slice_ / 4)) // every float is 1: the sum is a count
      throw Error("engine: the bandwidth sample read wrong values");
  const double bytes = double(slice_) * double(n),
               s = *std::max_element(seconds.begin(), seconds.end());
  bytes_ += bytes;
  seconds_ += s;
  ++samples_;
  return bytes / s;
}

} // namespace engine
