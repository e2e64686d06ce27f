// engine/cpu/ops_kernels.h - the AVX-512 (and, for silu_mul, AVX2) versions
// of the ops in ops.h (internal to engine/cpu); ops.cpp holds the portable
// versions and picks.
#pragma once

#include "engine/dtype.h"

#include <cstdint>

namespace engine::cpu_detail {

/// Rows [r0, r1). With `residual`: residual += x first and normalize it.
void rms_norm_avx512(float *residual, const float *x, const float *weight,
                     float *out, int64_t r0, int64_t r1, int64_t dim,
                     float eps);
/// Rows [r0, r1); gate and up rows are `in_stride` apart.
void silu_mul_avx512(const float *gate, const float *up, int64_t in_stride,
                     float *out, int64_t r0, int64_t r1, int64_t dim);
void silu_mul_avx2(const float *gate, const float *up, int64_t in_stride,
                   float *out, int64_t r0, int64_t r1, int64_t dim);
/// One head: x[i], x[i + half] rotated by (cos[i], sin[i]).
void rope_head_avx512(float *x, const float *cos, const float *sin,
                      int64_t half);
void convert_to_f32_avx512(DType dtype, const void *src, float *dst, int64_t n);
void softmax_avx512(float *x, int64_t n);

} // namespace engine::cpu_detail
