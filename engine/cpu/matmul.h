// engine/cpu/matmul.h - activations times a stored weight matrix, the bulk of
// a transformer's work.
//
// Weights stay as they were stored (bf16, f16 or f32, row-major [out, in],
// usually memory-mapped straight from a safetensors file, so only 2-byte
// aligned); activations are fp32. The kernel for each call is chosen from the
// active instruction-set level (cpu_features.h) and the batch size: bf16
// weights use AVX512-BF16 dot products for small batches and AMX tiles for
// large ones, with x rounded to bf16 once per call.
#pragma once

#include "engine/cpu/thread_pool.h"
#include "engine/dtype.h"

#include <cstdint>

namespace engine {

struct GemvPlan;

/// A row-major [rows, cols] weight matrix (row stride == cols elements).
struct WeightMatrix {
  DType dtype = DType::BF16;
  int64_t rows = 0; ///< outputs
  int64_t cols = 0; ///< inputs
  const void *data = nullptr;
  /// bf16 only: the plan one activation row (m = 1) runs with, chosen by
  /// measurement (gemv_tuning.h); null for the level's built-in kernel.
  const GemvPlan *gemv = nullptr;
};

/// y[m][w.rows] = x[m][w.cols] · wᵀ, accumulated in fp32. Work is split
/// across the pool's threads by output rows, so each weight is read once per
/// call; one row against bf16 weights runs w.gemv's plan when it has one.
/// x and y must not overlap. For bf16 weights at the avx512bf16 and amx
/// levels x is rounded to bf16 first (relative error about 1e-2 on long dot
/// products); the other paths keep x in fp32. f32 weights with m ≥ 64 go to
/// OpenBLAS, and so do bf16 and f16 weights below the avx512bf16 level,
/// widened to fp32 a block of rows at a time; the first such call sets
/// OpenBLAS to one thread per caller (the pool provides the parallelism).
/// Throws engine::Error when m < 0, w.rows or w.cols < 1, or a pointer is null
/// while m > 0.
void matmul(ThreadPool &pool, const float *x, int64_t m, const WeightMatrix &w,
            float *y);

/// How f32 weights, and 16-bit weights below the avx512bf16 level, are
/// multiplied: OpenBLAS sgemm (default for m ≥ 64) or the engine's own SIMD
/// kernels (default below). OpenBLAS picks its own instruction set, whatever
/// the cap. For benchmarks and tests.
enum class F32Matmul { Auto, OpenBlas, Own };
void set_f32_matmul(F32Matmul mode);

/// The smallest batch for which bf16 weights use AMX (when active). For
/// benchmarks and tests; 0 restores the measured default.
void set_amx_min_batch(int64_t m);

} // namespace engine
