// engine/cpu/matmul_scalar.cpp - the portable matmul kernel (any x86-64): the
// fallback below AVX2 and the level the others are compared with.
#include "engine/cpu/matmul_kernels.h"

#include <vector>

namespace engine::cpu_detail {

void matmul_rows_scalar(const MatmulJob &job, int64_t r0, int64_t r1) {
  const int64_t cols = job.cols;
  // One weight row at a time, widened to fp32 once and reused for all m rows
  // of x.
  std::vector<float> row(cols);
  for (int64_t r = r0; r < r1; ++r) {
    switch (job.dtype) {
    case DType::F32: {
      const float *w = static_cast<const float *>(job.w) + r * cols;
      for (int64_t k = 0; k < cols; ++k)
        row[k] = w[k];
      break;
    }
    case DType::F16: {
      const uint16_t *w = static_cast<const uint16_t *>(job.w) + r * cols;
      for (int64_t k = 0; k < cols; ++k)
        row[k] = f16_to_f32(w[k]);
      break;
    }
    case DType::BF16: {
      const uint16_t *w = static_cast<const uint16_t *>(job.w) + r * cols;
      for (int64_t k = 0; k < cols; ++k)
        row[k] = bf16_to_f32(w[k]);
      break;
    }
    }
    for (int64_t i = 0; i < job.m; ++i) {
      const float *x = job.x + i * cols;
      // Four partial sums: shorter dependency chains, and the same order on
      // every run.
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int64_t k = 0;
      for (; k + 4 <= cols; k += 4) {
        s0 += x[k] * row[k];
        s1 += x[k + 1] * row[k + 1];
        s2 += x[k + 2] * row[k + 2];
        s3 += x[k + 3] * row[k + 3];
      }
      for (; k < cols; ++k)
        s0 += x[k] * row[k];
      job.y[i * job.rows + r] = (s0 + s1) + (s2 + s3);
    }
  }
}

} // namespace engine::cpu_detail
