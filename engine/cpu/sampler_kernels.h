// engine/cpu/sampler_kernels.h - the Sampler's passes over a whole row of
// logits (max, first position of a value, skipping runs below a threshold,
// exp), compiled for SSE2 (every x86-64) and AVX2+FMA and picked once at run
// time, since a 151,936-token row makes them the whole cost of sampling.
#pragma once

#include <cstdint>

namespace engine {

struct SamplerKernels {
  /// Largest value of x[0, n), NaNs skipped; -inf when there is none.
  float (*row_max)(const float *x, int64_t n);
  /// First i in [0, n) with x[i] == value, or -1.
  int64_t (*first_index_of)(const float *x, int64_t n, float value);
  /// Smallest i >= from, stepping from `from` by kGroup, whose group
  /// x[i, i + kGroup) holds a value >= threshold (NaN never does), or the
  /// first i whose group would pass n. The caller checks that group itself.
  int64_t (*skip_below)(const float *x, int64_t from, int64_t n,
                        float threshold);
  /// x[i] = exp((x[i] - max) * inv_t) for i in [0, n), where x[i] <= max:
  /// about 1 ulp, exactly 0 below e^-87 or for NaN. Returns the sum.
  double (*exp_in_place)(float *x, int64_t n, float max, float inv_t);
  /// "avx2" or "sse2" (or "scalar" off x86).
  const char *name;
};

constexpr int64_t kGroup = 16;

/// The best kernels this CPU runs (chosen on the first call).
const SamplerKernels &sampler_kernels();
/// The baseline kernels, for tests comparing the two.
const SamplerKernels &baseline_sampler_kernels();

} // namespace engine
