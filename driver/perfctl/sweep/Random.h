//===- Random.h - reproducible random numbers for perfctl -------*- C++ -*-===//
//
// The run order and every bootstrap in perfctl come from one seed (--seed),
// so a sweep and its statistics are reproducible. std::mt19937_64's output is
// fixed by the standard, but std::uniform_int_distribution and std::shuffle
// are not (libstdc++ and libc++ differ), so indices are drawn here.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_RANDOM_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_RANDOM_H

#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace perfcc::perfctl {

using Rng = std::mt19937_64;

/// A uniform index in [0, n), by rejection (no modulo bias). \p n > 0.
inline std::size_t uniformIndex(Rng &rng, std::size_t n) {
  const std::uint64_t range = n;
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  std::uint64_t r;
  do
    r = rng();
  while (r >= limit);
  return static_cast<std::size_t>(r % range);
}

/// Fisher-Yates shuffle with uniformIndex: the same order on every platform.
template <typename T> void shuffle(std::vector<T> &items, Rng &rng) {
  for (std::size_t i = items.size(); i > 1; --i)
    std::swap(items[i - 1], items[uniformIndex(rng, i)]);
}

/// +1 or -1 with equal probability (the wild bootstrap's Rademacher weights).
inline double rademacher(Rng &rng) { return (rng() >> 63) ? 1.0 : -1.0; }

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_RANDOM_H
