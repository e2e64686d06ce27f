// engine/cuda/gemv.h - y = x·wᵀ for a few rows of x (decode at batch 1-4),
// where a matrix-vector kernel reads the weights faster than cuBLAS's GEMM
// kernels do. bf16 in, fp32 accumulation, bf16 or fp32 out.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace engine::cuda {

constexpr int kMaxGemvRows = 4;

/// Whether launch_gemv handles n rows of x with `cols` columns (n ≤ 4, cols
/// a multiple of 8).
bool gemv_supports(int n, int cols);

/// How a GEMV reads its weights (gemv_options.h says why and where they are
/// set); neither changes a result.
struct GemvOptions {
  /// Each block asks for its rows of w in L2 before it waits for the kernel
  /// ahead.
  bool prefetch = false;
  /// 1, 2 or 4: the rows a group of warps takes at once (in matrices of
  /// fewer than 16,384 rows, where a row gets four warps).
  int rows_per_group = 1;
};

/// y[n][rows] = x[n][cols] · w[rows][cols]ᵀ; y is bf16, or fp32 when y_f32.
/// Needs gemv_supports(n, cols) and 16-byte aligned w and x.
void launch_gemv(const uint16_t *w, int rows, int cols, const uint16_t *x,
                 int n, void *y, bool y_f32, cudaStream_t stream,
                 GemvOptions options = {});

/// The MLP's down projection with SwiGLU folded in: x = silu(gate) · up
/// (rounded to bf16, as launch_silu_mul stores it) from gate_up
/// [n][2·cols], gate first; y bf16. Saves a kernel per layer.
void launch_gemv_swiglu(const uint16_t *w, int rows, int cols,
                        const uint16_t *gate_up, int n, uint16_t *y,
                        cudaStream_t stream, GemvOptions options = {});

} // namespace engine::cuda
