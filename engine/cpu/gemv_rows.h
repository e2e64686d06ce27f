// engine/cpu/gemv_rows.h - what the gemv kernels share (internal to
// engine/cpu): walking a thread's rows in blocks while prefetching a later
// block, x split into even and odd columns, and the columns a vector loop
// leaves to scalar code.
#pragma once

#include "engine/cpu/gemv_kernels.h"
#include "engine/dtype.h"

#include <cstdint>
#include <immintrin.h>
#include <type_traits>
#include <vector>

namespace engine::cpu_detail {

/// At step `step` of a loop that reads StepBytes a step, prefetches the
/// lines of `ahead` that the same stretch of the later block holds. Null
/// `ahead` (no later block in this thread's rows) prefetches nothing.
template <int StepBytes>
inline void prefetch_step(const char *ahead, int64_t step) {
  if (!ahead)
    return;
  if constexpr (StepBytes >= 64) {
    for (int j = 0; j < StepBytes / 64; ++j)
      _mm_prefetch(ahead + step * StepBytes + j * 64, _MM_HINT_T0);
  } else {
    constexpr int every = 64 / StepBytes;
    if (step % every == 0)
      _mm_prefetch(ahead + step * StepBytes, _MM_HINT_T0);
  }
}

/// Rows [r0, r1) R at a time, then one at a time: calls
/// block(std::integral_constant<int, rows>, r, ahead), where `ahead` is the
/// block D blocks later when it lies within [.., r1) (one contiguous stretch:
/// rows are contiguous), else null, as it is for D = 0 and the single rows.
template <int R, int D, typename Block>
inline void for_each_row_block(const GemvJob &job, int64_t r0, int64_t r1,
                               Block &&block) {
  int64_t r = r0;
  for (; r + R <= r1; r += R) {
    const char *ahead =
        D > 0 && r + (D + 1) * R <= r1
            ? reinterpret_cast<const char *>(job.w + (r + D * R) * job.cols)
            : nullptr;
    block(std::integral_constant<int, R>{}, r, ahead);
  }
  for (; r < r1; ++r)
    block(std::integral_constant<int, 1>{}, r, nullptr);
}

/// x from column `head` on, per Group columns: the Group/2 even-numbered
/// values, then the odd ones (one buffer per thread and group width).
template <int Group>
inline const float *split_even_odd(const GemvJob &job, int64_t head) {
  thread_local std::vector<float> split;
  const float *x = job.x + head;
  const int64_t groups = (job.cols - head) / Group;
  split.resize(size_t(groups * Group));
  for (int64_t g = 0; g < groups; ++g)
    for (int j = 0; j < Group / 2; ++j) {
      split[size_t(Group * g + j)] = x[Group * g + 2 * j];
      split[size_t(Group * g + Group / 2 + j)] = x[Group * g + 2 * j + 1];
    }
  return split.data();
}

/// Σ x[t]·row[t] over columns [from, to), one by one.
inline float scalar_columns(const GemvJob &job, const uint16_t *row,
                            int64_t from, int64_t to) {
  float s = 0;
  for (int64_t t = from; t < to; ++t)
    s += job.x[t] * bf16_to_f32(row[t]);
  return s;
}

} // namespace engine::cpu_detail
