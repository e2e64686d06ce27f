// engine/cuda/gemv_options.h - two ways a decode step's GEMVs (gemv.h) may
// read their weights, each off by default until a GPU has measured it
// (scripts/gpu-check.sh runs batch-1 decode with each).
//
// Why: at batch 1 a projection of a few MB is latency-bound (on the H200 a
// 4 MB one took 3.8 µs where its bytes need 0.9).
// - Prefetch (ENGINE_CUDA_PREFETCH=1): the weights depend on nothing
//   computed, so a GEMV let onto the GPU early by programmatic dependent
//   launch can ask for its rows in L2 while the kernel ahead still runs (a
//   norm, RoPE or attention kernel, which hardly uses the memory's
//   bandwidth), and read them from there after its wait. A prefetch holds no
//   register (issuing the loads themselves early lost by the registers they
//   held) and changes no result.
// - Rows per group (ENGINE_CUDA_GEMV_ROWS=2 or 4): the warps that share a row
//   take that many rows at once, so each lane has that many weight loads in
//   flight and reads its part of x once for all of them. With one row, every
//   row re-reads all of x from L2: as many bytes as the weights.
#pragma once

#include "engine/cuda/gemv.h"

namespace engine::cuda {

/// ENGINE_CUDA_PREFETCH: 1 prefetches, 0 (the default) does not. Read once;
/// anything else throws engine::Error.
bool gemv_prefetch_enabled();

/// ENGINE_CUDA_GEMV_ROWS: 1 (the default), 2 or 4. Read once; anything else
/// throws engine::Error.
int gemv_rows_per_group();

/// The options for a GEMV launched now: the rows per group, and the
/// prefetch only for a programmatic dependent (elsewhere nothing runs ahead
/// of it to overlap).
GemvOptions gemv_options_now();

} // namespace engine::cuda
