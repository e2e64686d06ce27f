// test/engine/cpu/matmul_test.cpp - matmul() against an fp64 reference for
// every weight type, many shapes and every instruction-set level.
#include "engine/cpu/matmul.h"
#include "engine/cpu/matmul_kernels.h"
#include "engine/error.h"
#include "isa_test_util.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <tuple>

namespace engine {
namespace {

using test::available_isas;
using test::PerIsa;
using test::random_floats;

// Weights stored in `dtype` and the same values widened back to fp32 (the
// exact values the kernels see).
struct TestWeights {
  std::vector<uint16_t> half;
  std::vector<float> f32;
  std::vector<float> exact;
  WeightMatrix matrix(DType dtype, int64_t rows, int64_t cols) const {
    return {dtype, rows, cols,
            dtype == DType::F32 ? static_cast<const void *>(f32.data())
                                : static_cast<const void *>(half.data())};
  }
};

TestWeights make_weights(DType dtype, int64_t n, std::mt19937 &rng) {
  TestWeights w;
  w.f32 = random_floats(size_t(n), rng);
  w.exact = w.f32;
  if (dtype != DType::F32) {
    w.half.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      w.half[i] =
          dtype == DType::BF16 ? f32_to_bf16(w.f32[i]) : f32_to_f16(w.f32[i]);
      w.exact[i] =
          dtype == DType::BF16 ? bf16_to_f32(w.half[i]) : f16_to_f32(w.half[i]);
    }
  }
  return w;
}

// Tolerance per output, as a fraction of Σ|x·w| (which bounds the error of
// any summation order):
//  - bf16 weights at the avx512bf16 and amx levels round x to bf16 (relative
//    error ≤ 2⁻⁹ per element), so each product is off by ≤ 2⁻⁹|x·w|, plus
//    fp32 accumulation: 2⁻⁸ covers both.
//  - everything else multiplies the exact fp32 x and weights and only the
//    fp32 accumulation differs from fp64: ≲ log2(K)·2⁻²⁴ for blocked sums,
//    1e-5 leaves margin for the K ≤ 1024 used here (and for OpenBLAS).
double tolerance(DType dtype, Isa isa) {
  return dtype == DType::BF16 && isa >= Isa::Avx512Bf16 ? 1.0 / 256 : 1e-5;
}

void expect_matmul_matches_reference(ThreadPool &pool, DType dtype, int64_t m,
                                     int64_t rows, int64_t cols,
                                     uint32_t seed) {
  std::mt19937 rng(seed);
  TestWeights w = make_weights(dtype, rows * cols, rng);
  std::vector<float> x = random_floats(size_t(m * cols), rng);
  std::vector<float> y(size_t(m * rows), NAN);
  matmul(pool, x.data(), m, w.matrix(dtype, rows, cols), y.data());
  double tol = tolerance(dtype, active_isa());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t r = 0; r < rows; ++r) {
      double ref = 0, magnitude = 0;
      for (int64_t k = 0; k < cols; ++k) {
        double p = double(x[i * cols + k]) * w.exact[r * cols + k];
        ref += p;
        magnitude += std::fabs(p);
      }
      double got = y[i * rows + r];
      ASSERT_NEAR(got, ref, tol * magnitude + 1e-30)
          << dtype_name(dtype) << " m=" << m << " rows=" << rows
          << " cols=" << cols << " at y[" << i << "][" << r << "]";
    }
}

class MatmulPerIsa : public PerIsa {};

TEST_P(MatmulPerIsa, MatchesFp64ReferenceForAllDtypesAndShapes) {
  ThreadPool pool(3);
  uint32_t seed = 1;
  // cols: below one vector, not a multiple of 16 or 32 (tails), several AMX
  // column blocks, several of the avx2 few-rows kernel's (256) with a short
  // last one; rows: odd, below and around the 16-row AMX tiles; m: around
  // the few-rows kernel's four-row steps and its limit.
  for (DType dtype : {DType::BF16, DType::F16, DType::F32})
    for (int64_t m : {1, 2, 3, 7, 16, 23, 33, 130, 600})
      for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1},
                                {17, 40},
                                {33, 96},
                                {50, 17},
                                {7, 130},
                                {11, 600}})
        expect_matmul_matches_reference(pool, dtype, m, rows, cols, seed++);
}

TEST_P(MatmulPerIsa, MatchesFp64ReferenceOnAModelSizedBf16Matrix) {
  ThreadPool pool(2);
  for (int64_t m : {1, 16, 130})
    expect_matmul_matches_reference(pool, DType::BF16, m, 256, 1024, 7);
}

TEST_P(MatmulPerIsa, AmxAndDotProductKernelsAgreeAtEveryBatchSize) {
  // Forcing AMX down to m = 1 exercises its partial tiles (one B tile, x rows
  // past m) that the default threshold never reaches.
  ThreadPool pool(2);
  set_amx_min_batch(1);
  for (int64_t m : {1, 2, 5, 17})
    expect_matmul_matches_reference(pool, DType::BF16, m, 48, 72, 11);
  set_amx_min_batch(0);
}

TEST_P(MatmulPerIsa, ResultDoesNotDependOnTheNumberOfThreads) {
  std::mt19937 rng(5);
  const int64_t m = 20, rows = 67, cols = 200;
  TestWeights w = make_weights(DType::BF16, rows * cols, rng);
  std::vector<float> x = random_floats(size_t(m * cols), rng);
  std::vector<float> y1(size_t(m * rows)), y3(size_t(m * rows));
  ThreadPool one(1), three(3);
  matmul(one, x.data(), m, w.matrix(DType::BF16, rows, cols), y1.data());
  matmul(three, x.data(), m, w.matrix(DType::BF16, rows, cols), y3.data());
  EXPECT_EQ(0, std::memcmp(y1.data(), y3.data(), y1.size() * sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(Levels, MatmulPerIsa,
                         testing::ValuesIn(available_isas()),
                         test::isa_param_name);

// The dot-product kernel's second use: the columns from k0 on, added to what
// y holds (AMX leaves it the column tail past the last whole 32). Driven
// directly, so that every CPU with AVX512-BF16 checks it, AMX or not; every
// block shape (4 rows by 1 to 4 x rows, and single rows) and their prefetch.
TEST(MatmulAvx512Bf16, AddsTheColumnsFromK0ToWhatYHolds) {
  if (max_supported_isa() < Isa::Avx512Bf16)
    GTEST_SKIP() << "this CPU has no AVX512-BF16";
  for (int64_t m : {1, 3, 16, 23})
    for (auto [rows, cols, k0] :
         {std::tuple<int64_t, int64_t, int64_t>{37, 96, 64},
          {50, 200, 32},
          {13, 1030, 1024}}) {
      std::mt19937 rng(uint32_t(m * rows + cols));
      TestWeights w = make_weights(DType::BF16, rows * cols, rng);
      std::vector<float> x = random_floats(size_t(m * cols), rng);
      std::vector<float> before = random_floats(size_t(m * rows), rng);
      const int64_t stride = (cols + 31) / 32 * 32;
      std::vector<uint16_t> xb(size_t(m * stride));
      cpu_detail::convert_rows_bf16(x.data(), cols, 0, m, xb.data(), stride);
      std::vector<float> y = before;
      cpu_detail::MatmulJob job;
      job.x = x.data();
      job.m = m;
      job.w = w.half.data();
      job.rows = rows;
      job.cols = cols;
      job.y = y.data();
      job.xb = xb.data();
      job.xb_stride = stride;
      cpu_detail::matmul_rows_avx512bf16(job, 0, rows, k0, true);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t r = 0; r < rows; ++r) {
          double ref = before[i * rows + r], magnitude = 0;
          for (int64_t k = k0; k < cols; ++k) {
            double p = double(x[i * cols + k]) * w.exact[r * cols + k];
            ref += p;
            magnitude += std::fabs(p);
          }
          ASSERT_NEAR(y[i * rows + r], ref, magnitude / 256 + 1e-6)
              << "m=" << m << " rows=" << rows << " cols=" << cols
              << " k0=" << k0 << " at y[" << i << "][" << r << "]";
        }
    }
}

TEST(Matmul, F32OwnKernelAndOpenBlasBothMatchTheReference) {
  ThreadPool pool(2);
  for (F32Matmul mode : {F32Matmul::Own, F32Matmul::OpenBlas}) {
    set_f32_matmul(mode);
    for (int64_t m : {1, 3, 16, 33})
      expect_matmul_matches_reference(pool, DType::F32, m, 37, 70, 3);
  }
  set_f32_matmul(F32Matmul::Auto);
}

TEST(Matmul, EmptyBatchWritesNothing) {
  ThreadPool pool(2);
  std::vector<uint16_t> w(4, 0);
  float y = 42;
  matmul(pool, nullptr, 0, {DType::BF16, 2, 2, w.data()}, &y);
  EXPECT_EQ(42, y);
}

TEST(Matmul, RejectsBadArgumentsWithAnError) {
  ThreadPool pool(2);
  std::vector<uint16_t> w(4, 0);
  float x[2] = {1, 2}, y[2];
  EXPECT_THROW(matmul(pool, x, -1, {DType::BF16, 2, 2, w.data()}, y), Error);
  EXPECT_THROW(matmul(pool, x, 1, {DType::BF16, 0, 2, w.data()}, y), Error);
  EXPECT_THROW(matmul(pool, x, 1, {DType::BF16, 2, 2, nullptr}, y), Error);
}

} // namespace
} // namespace engine
