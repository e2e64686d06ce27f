// engine/cuda/split_sampling.h - sampling a row with several blocks in one
// pass over its logits (launch_sample's split form, kernels.h), off by
// default until a GPU has measured it (scripts/gpu-check.sh runs batch-1
// decode with and without it).
//
// Why: the shipped sampler gives a row one block, which reads the row's
// 152k logits twice (the argmax, then the draw's sums) from one SM. At
// batch 1 that took 54 µs of a 935 µs step on the H200 (a single SM cannot
// keep enough loads in flight), and 106 µs at 256 rows, where its two
// passes read 310 MB. The split form spreads a row over up to 32 blocks and
// reads it once: each warp keeps its segment's running maximum and sum of
// exp((x − max) / T), as FlashAttention keeps a softmax's, and the last
// block of the row merges them and walks the one segment the draw falls in.
#pragma once

#include "engine/cuda/kernels.h"

#include <cstdint>

namespace engine::cuda {

/// ENGINE_CUDA_SPLIT_SAMPLING: 1 samples with the split form, 0 (the
/// default) with a block per row. Read once; anything else throws
/// engine::Error.
bool split_sampling_enabled();

/// Blocks per row for `rows` rows of `vocab` logits on a GPU of `sms`
/// multiprocessors: about two per multiprocessor in all (two blocks of 1024
/// threads fit one), at least one and at most kMaxSplitBlocks per row, and
/// none with fewer logits than threads.
int split_sampling_blocks(int rows, int vocab, int sms);

/// Floats of SampleWorkspace::scratch for up to `rows` rows.
int64_t sample_workspace_floats(int rows);

} // namespace engine::cuda
