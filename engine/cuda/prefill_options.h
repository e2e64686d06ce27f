// engine/cuda/prefill_options.h - how the prefill attention kernel stages
// its K and V tiles in shared memory (attention_prefill.cu): two new ways,
// each off until a GPU has measured it (scripts/gpu-check.sh runs pp512 and
// Nano-vLLM's protocol with each).
//
// Why: prefill attention was 0.3 s of the protocol's 6.75 s on the H200,
// about a tenth of the rate its products could reach on the tensor cores.
// The shipped kernel loads a tile into registers, transposes V on its way
// into shared memory (eight 2-byte stores per 16 bytes loaded, and a warp's
// threads storing one key's dimensions all hit one bank: 16-way conflicts),
// then waits at a barrier before any product starts, and the next tile's
// loads wait for the products; at 2 blocks of 4 warps per SM (its registers
// allow no more), little else hides that latency.
// - ldmatrix: V stored as loaded (16-byte stores, no conflict), its mma
//   fragments read with ldmatrix.trans;
// - async: as ldmatrix, each tile copied by cp.async into one of two
//   buffers while the block computes on the other.
// Both give P·V the same values in the same registers: the same result as
// the shipped form, bit for bit (the kernel tests check it).
#pragma once

#include "engine/cuda/kernels.h"

namespace engine::cuda {

/// ENGINE_CUDA_PREFILL_STAGING: transpose (the default), ldmatrix or async.
/// Read once; anything else throws engine::Error.
PrefillStaging prefill_staging();

} // namespace engine::cuda
