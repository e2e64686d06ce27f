// engine/cpu/gemv_prefetch.h - software prefetch for the gemv kernels
// (internal to engine/cpu): while a kernel streams one block of rows, it
// walks a later block, one cache line per 64 bytes it reads itself, so the
// later block is in cache by the time it is needed.
#pragma once

#include <cstdint>
#include <immintrin.h>

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

/// The block `blocks_ahead` blocks of `rows_per_block` rows after row r, if
/// it lies within [.., r1); null otherwise or when blocks_ahead is 0.
inline const char *block_ahead(const uint16_t *w, int64_t cols, int64_t r,
                               int64_t r1, int rows_per_block,
                               int blocks_ahead) {
  if (blocks_ahead == 0 || r + (blocks_ahead + 1) * rows_per_block > r1)
    return nullptr;
  return reinterpret_cast<const char *>(
      w + (r + int64_t(blocks_ahead) * rows_per_block) * cols);
}

} // namespace engine::cpu_detail
