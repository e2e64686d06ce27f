// engine/cuda/attention_options.h - two changes to the attention kernels,
// each off by default until a GPU has measured it (scripts/gpu-check.sh
// runs the protocol, pp512 and batch-1 decode with each). Neither changes a
// bit of the result: the kernel tests compare each with the shipped form.
//
// How prefill attention stages its K and V tiles in shared memory
// (ENGINE_CUDA_PREFILL_STAGING, attention_prefill.cu). Prefill attention was
// 0.3 s of the protocol's 6.75 s on the H200, about a tenth of the rate its
// products could reach on the tensor cores. The shipped kernel loads a tile
// into registers, transposes V on its way into shared memory (eight 2-byte
// stores per 16 bytes loaded, and a warp's threads storing one key's
// dimensions all hit one bank: 16-way conflicts), then waits at a barrier
// before any product starts, and the next tile's loads wait for the
// products; at 2 blocks of 4 warps per SM (its registers allow no more),
// little else hides that latency.
// - ldmatrix: V stored as loaded (16-byte stores, no conflict), its mma
//   fragments read with ldmatrix.trans;
// - async: as ldmatrix, each tile copied by cp.async into one of two
//   buffers while the block computes on the other.
//
// Whether decode attention does the q/k norms, RoPE and KV store itself
// (ENGINE_CUDA_FOLD_QK_NORM=1, attention_decode.cu). At batch 1 a step is
// 228 kernels, each mostly its own latency: the qk_norm_rope_store kernel
// took 2.1 µs a layer for a few KB of work (59 µs of a 935 µs step on the
// H200). Folded into the one-pass attention kernel (below 16 sequences),
// each block norms and rotates its own query heads and the last partition's
// block stores the new key and value before reading them: 28 kernels a step
// fewer.
#pragma once

#include "engine/cuda/kernels.h"

namespace engine::cuda {

/// ENGINE_CUDA_PREFILL_STAGING: transpose (the default), ldmatrix or async.
/// Read once; anything else throws engine::Error.
PrefillStaging prefill_staging();

/// ENGINE_CUDA_FOLD_QK_NORM: 1 folds, 0 (the default) does not. Read once;
/// anything else throws engine::Error.
bool decode_folds_qk_norm();

} // namespace engine::cuda
