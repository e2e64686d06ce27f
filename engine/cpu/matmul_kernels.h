// engine/cpu/matmul_kernels.h - the per-instruction-set matmul kernels behind
// matmul() (internal to engine/cpu).
//
// Each kernel computes a slice of output columns (weight rows) of one call;
// matmul.cpp picks the kernel, prepares the bf16 copies of x and splits the
// rows across threads. The kernels are compiled with function-level target
// attributes, so nothing but the chosen one ever runs on a given CPU.
#pragma once

#include "engine/dtype.h"

#include <cstdint>

namespace engine::cpu_detail {

struct MatmulJob {
  const float *x = nullptr; ///< [m][cols] fp32
  int64_t m = 0;
  DType dtype = DType::BF16;
  const void *w = nullptr; ///< [rows][cols]
  int64_t rows = 0, cols = 0;
  float *y = nullptr; ///< [m][rows]
  /// bf16 kernels: x rounded to bf16, [m][xb_stride], zero-padded to
  /// xb_stride (a multiple of 32).
  const uint16_t *xb = nullptr;
  int64_t xb_stride = 0;
  /// AMX: x as B tiles, see amx_pack_size().
  const uint32_t *xpack = nullptr;
};

/// y[:, r0:r1] for f32, f16 and bf16 weights with fp32 x.
void matmul_rows_scalar(const MatmulJob &job, int64_t r0, int64_t r1);
void matmul_rows_avx2(const MatmulJob &job, int64_t r0, int64_t r1);
void matmul_rows_avx512(const MatmulJob &job, int64_t r0, int64_t r1);

/// bf16 weights against 1 to kFewRowsMax x rows at the avx2 level:
/// y[:, r0:r1], with xs = job.x split by split_columns_avx2. Measured with
/// bench/engine/matmul_bench (batch_sweep/avx2) on a Zen 3 against the general
/// avx2 kernel, two threads: +25-50% at m = 4, +10-25% at 16, 5-15% behind at
/// 32 and 48, where the general kernel's widening is shared by more rows.
constexpr int64_t kFewRowsMax = 24;
void matmul_rows_avx2_bf16(const MatmulJob &job, const float *xs, int64_t r0,
                           int64_t r1);
/// x [m][cols] into xs [m][cols], each whole group of 16 columns as its 8
/// even-numbered ones then its 8 odd ones (the order in which the kernel
/// widens a 32-byte load of bf16 weights). The columns past the last whole
/// group are not written: the kernel takes them from job.x.
void split_columns_avx2(const float *x, int64_t m, int64_t cols, float *xs);
/// xs's row stride: cols and one more group, so that rows a multiple of
/// 4 KiB long do not all fall into the same L1 sets.
constexpr int64_t split_stride(int64_t cols) { return cols + 16; }

/// Rounds x rows [i0, i1) to bf16 into xb (row stride `stride` ≥ cols,
/// padding zeroed). Needs AVX512-BF16.
void convert_rows_bf16(const float *x, int64_t cols, int64_t i0, int64_t i1,
                       uint16_t *xb, int64_t stride);

/// bf16 weights with job.xb: y[:, r0:r1] = x[:, k0:] · w[r0:r1, k0:]ᵀ, added
/// to y when `accumulate`. Needs AVX512-BF16.
void matmul_rows_avx512bf16(const MatmulJob &job, int64_t r0, int64_t r1,
                            int64_t k0 = 0, bool accumulate = false);

/// AMX packing of x: B tiles of 16 x rows by 32 columns (16 pair-rows of 16
/// dwords), for the first cols/32*32 columns, 16-row groups padded with zeros.
int64_t amx_pack_size(int64_t m, int64_t cols); ///< in uint32_t
/// Packs 16-row groups [g0, g1) from job.xb into xpack.
void amx_pack(const uint16_t *xb, int64_t xb_stride, int64_t m, int64_t cols,
              int64_t g0, int64_t g1, uint32_t *xpack);

/// bf16 weights with job.xpack (and job.xb for a column tail): y[:, r0:r1],
/// r0 and r1 − r0 multiples of 16. Needs AMX with permission.
void matmul_rows_amx(const MatmulJob &job, int64_t r0, int64_t r1);

} // namespace engine::cpu_detail
