// test/engine/cpu/ops_test.cpp - the element-wise ops against fp64 references
// at every instruction-set level.
#include "engine/cpu/ops.h"
#include "engine/error.h"
#include "isa_test_util.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace engine {
namespace {

using test::available_isas;
using test::random_floats;

class OpsPerIsa : public test::PerIsa {};

const int64_t kDims[] = {1, 7, 16, 40, 128, 1000, 1024};

double rms_scale(const float *row, int64_t dim, float eps) {
  double sum = 0;
  for (int64_t k = 0; k < dim; ++k)
    sum += double(row[k]) * row[k];
  return 1.0 / std::sqrt(sum / double(dim) + eps);
}

// fp32 sums of squares over ≤ 1024 terms, one rsqrt and two products: a few
// fp32 ulps plus the summation error, well inside 1e-5 relative.
constexpr double kNormTol = 1e-5;

TEST_P(OpsPerIsa, RmsNormMatchesFp64Reference) {
  std::mt19937 rng(1);
  for (int64_t dim : kDims)
    for (int64_t rows : {1, 3, 17}) {
      auto x = random_floats(size_t(rows * dim), rng, -3, 3);
      auto w = random_floats(size_t(dim), rng, 0.5, 1.5);
      std::vector<float> out(x.size());
      rms_norm(x.data(), w.data(), out.data(), rows, dim, 1e-6f);
      for (int64_t r = 0; r < rows; ++r) {
        double s = rms_scale(&x[r * dim], dim, 1e-6f);
        for (int64_t k = 0; k < dim; ++k) {
          double ref = x[r * dim + k] * s * w[k];
          ASSERT_NEAR(ref, out[r * dim + k], kNormTol * std::fabs(ref) + 1e-7)
              << "dim " << dim << " row " << r << " k " << k;
        }
      }
    }
}

TEST_P(OpsPerIsa, AddRmsNormUpdatesTheResidualAndNormalizesIt) {
  std::mt19937 rng(2);
  ThreadPool pool(2);
  for (int64_t dim : kDims) {
    const int64_t rows = 40;
    auto x = random_floats(size_t(rows * dim), rng, -2, 2);
    auto res = random_floats(size_t(rows * dim), rng, -2, 2);
    auto w = random_floats(size_t(dim), rng, 0.5, 1.5);
    std::vector<float> res1 = res, res2 = res, out1(x.size()), out2(x.size());
    add_rms_norm(res1.data(), x.data(), w.data(), out1.data(), rows, dim,
                 1e-6f);
    add_rms_norm(pool, res2.data(), x.data(), w.data(), out2.data(), rows, dim,
                 1e-6f);
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(res[i] + x[i], res1[i]) << "the residual add is exact fp32";
    for (int64_t r = 0; r < rows; ++r) {
      double s = rms_scale(&res1[r * dim], dim, 1e-6f);
      for (int64_t k = 0; k < dim; ++k) {
        double ref = res1[r * dim + k] * s * w[k];
        ASSERT_NEAR(ref, out1[r * dim + k], kNormTol * std::fabs(ref) + 1e-7);
      }
    }
    EXPECT_EQ(res1, res2) << "the pool form computes the same";
    EXPECT_EQ(out1, out2);
  }
}

TEST_P(OpsPerIsa, RmsNormMayWriteInPlace) {
  std::mt19937 rng(3);
  auto x = random_floats(300, rng);
  auto w = random_floats(100, rng);
  std::vector<float> out(300), inplace = x;
  rms_norm(x.data(), w.data(), out.data(), 3, 100, 1e-6f);
  rms_norm(inplace.data(), w.data(), inplace.data(), 3, 100, 1e-6f);
  EXPECT_EQ(out, inplace);
}

double silu_ref(double g) { return g / (1.0 + std::exp(-g)); }

// The vector exp is within 2 ulp and one division and one product follow:
// 1e-6 relative covers it (plus an absolute floor for results near 0).
TEST_P(OpsPerIsa, SiluMulMatchesFp64ReferenceInBothLayouts) {
  std::mt19937 rng(4);
  ThreadPool pool(2);
  for (int64_t dim : kDims) {
    const int64_t rows = 20;
    auto gate_up = random_floats(size_t(rows * 2 * dim), rng, -20, 20);
    std::vector<float> gate(size_t(rows * dim)), up(size_t(rows * dim));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < dim; ++k) {
        gate[r * dim + k] = gate_up[r * 2 * dim + k];
        up[r * dim + k] = gate_up[r * 2 * dim + dim + k];
      }
    std::vector<float> fused(gate.size()), split(gate.size()),
        pooled(gate.size());
    silu_mul(gate_up.data(), fused.data(), rows, dim);
    silu_mul(gate.data(), up.data(), split.data(), rows, dim);
    silu_mul(pool, gate_up.data(), pooled.data(), rows, dim);
    for (size_t i = 0; i < gate.size(); ++i) {
      double ref = silu_ref(gate[i]) * up[i];
      ASSERT_NEAR(ref, fused[i], 1e-6 * std::fabs(ref) + 1e-12)
          << "gate " << gate[i] << " up " << up[i];
    }
    EXPECT_EQ(fused, split);
    EXPECT_EQ(fused, pooled);
  }
}

TEST_P(OpsPerIsa, SiluOfExtremeGatesStaysFinite) {
  float gate_up[4] = {-1000.0f, 1000.0f, 1.0f, 1.0f};
  float out[2];
  silu_mul(gate_up, out, 1, 2);
  EXPECT_NEAR(0.0f, out[0], 1e-30);
  EXPECT_EQ(1000.0f, out[1]);
  // The same in vector lanes (17 gates: two of 8 and a tail).
  std::vector<float> lanes(34, 1.0f), wide(17);
  const float gates[] = {-1000.0f, 1000.0f, -200.0f, -90.0f, 90.0f, -104.5f};
  for (int i = 0; i < 17; ++i)
    lanes[size_t(i)] = gates[i % 6];
  silu_mul(lanes.data(), wide.data(), 1, 17);
  for (int i = 0; i < 17; ++i) {
    const float g = gates[i % 6];
    if (g > 0)
      EXPECT_EQ(g, wide[size_t(i)]) << "gate " << g;
    else
      EXPECT_NEAR(0.0f, wide[size_t(i)], 1e-30) << "gate " << g;
  }
}

TEST(RopeTable, RejectsBadParameters) {
  EXPECT_THROW(RopeTable(7, 10000, 10), Error);
  EXPECT_THROW(RopeTable(0, 10000, 10), Error);
  EXPECT_THROW(RopeTable(128, 0, 10), Error);
  EXPECT_THROW(RopeTable(128, 10000, 0), Error);
}

TEST_P(OpsPerIsa, RopeAtPositionZeroIsTheIdentity) {
  RopeTable table(128, 1e6, 16);
  std::mt19937 rng(5);
  auto x = random_floats(3 * 4 * 128, rng);
  auto y = x;
  int32_t pos[3] = {0, 0, 0};
  rope(table, pos, 3, y.data(), 4);
  EXPECT_EQ(x, y);
}

// Rotates (x[i], x[i + d/2]) by pos·θ^(−2i/d) in fp64.
void rope_ref(const float *x, double *out, int64_t d, int64_t pos,
              double theta) {
  for (int64_t i = 0; i < d / 2; ++i) {
    double angle = double(pos) * std::pow(theta, -2.0 * double(i) / double(d));
    double a = x[i], b = x[i + d / 2];
    out[i] = a * std::cos(angle) - b * std::sin(angle);
    out[i + d / 2] = b * std::cos(angle) + a * std::sin(angle);
  }
}

TEST_P(OpsPerIsa, RopeRotatesHalvesByTheReferenceAngles) {
  const int64_t d = 128, heads = 3;
  const double theta = 1e6;
  RopeTable table(int(d), theta, 4096);
  std::mt19937 rng(6);
  std::vector<int32_t> pos = {1, 2, 17, 100, 1000, 4095};
  auto x = random_floats(pos.size() * heads * d, rng);
  auto y = x;
  rope(table, pos.data(), int64_t(pos.size()), y.data(), heads);
  std::vector<double> ref(static_cast<size_t>(d));
  for (size_t t = 0; t < pos.size(); ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const float *src = &x[(t * heads + h) * d];
      rope_ref(src, ref.data(), d, pos[t], theta);
      // The table holds angles computed in fp32 as Hugging Face does: the
      // inverse frequency is off by ≤ 2 ulp and the product by ≤ 1 ulp, so
      // the angle by ≤ 3·2⁻²⁴·pos radians; cos/sin add an ulp.
      double tol = 3 * std::ldexp(1.0, -24) * pos[t] + 1e-6;
      for (int64_t i = 0; i < d / 2; ++i) {
        double mag = std::fabs(src[i]) + std::fabs(src[i + d / 2]);
        ASSERT_NEAR(ref[i], y[(t * heads + h) * d + i], tol * mag)
            << "pos " << pos[t] << " i " << i;
        ASSERT_NEAR(ref[i + d / 2], y[(t * heads + h) * d + i + d / 2],
                    tol * mag);
      }
    }
}

TEST_P(OpsPerIsa, RopedDotProductDependsOnlyOnThePositionDifference) {
  const int64_t d = 64;
  RopeTable table(int(d), 10000, 256);
  std::mt19937 rng(7);
  auto q = random_floats(d, rng), k = random_floats(d, rng);
  auto dot_at = [&](int32_t pq, int32_t pk) {
    auto a = q, b = k;
    rope(table, &pq, 1, a.data(), 1);
    rope(table, &pk, 1, b.data(), 1);
    double s = 0;
    for (int64_t i = 0; i < d; ++i)
      s += double(a[i]) * b[i];
    return s;
  };
  for (int32_t delta : {0, 1, 5, 30})
    for (int32_t p : {3, 50, 200}) {
      // fp32 angles at positions ≤ 230: ≤ 3·2⁻²⁴·230 ≈ 4e-5 rad each.
      EXPECT_NEAR(dot_at(delta, 0), dot_at(p + delta, p), 2e-4)
          << "delta " << delta << " p " << p;
    }
}

TEST(Rope, PositionOutsideTheTableIsAnError) {
  RopeTable table(8, 10000, 4);
  float x[8] = {};
  int32_t pos = 4, neg = -1;
  EXPECT_THROW(rope(table, &pos, 1, x, 1), Error);
  EXPECT_THROW(rope(table, &neg, 1, x, 1), Error);
}

TEST_P(OpsPerIsa, ConvertToF32IsExactForEveryHalfPrecisionPattern) {
  std::vector<uint16_t> all(65536);
  for (int i = 0; i < 65536; ++i)
    all[i] = uint16_t(i);
  std::vector<float> out(65536);
  for (DType dtype : {DType::BF16, DType::F16}) {
    convert_to_f32(dtype, all.data(), out.data(), 65536);
    for (int i = 0; i < 65536; ++i) {
      float ref = dtype == DType::BF16 ? bf16_to_f32(uint16_t(i))
                                       : f16_to_f32(uint16_t(i));
      if (std::isnan(ref))
        ASSERT_TRUE(std::isnan(out[i])) << i;
      else
        ASSERT_EQ(0, std::memcmp(&ref, &out[i], 4))
            << dtype_name(dtype) << " 0x" << std::hex << i;
    }
  }
  std::vector<float> f = {1.5f, -2.0f, 3.25f}, g(3);
  convert_to_f32(DType::F32, f.data(), g.data(), 3);
  EXPECT_EQ(f, g);
}

TEST_P(OpsPerIsa, EmbeddingLookupWidensTheRequestedRows) {
  const int64_t vocab = 10, dim = 37;
  std::mt19937 rng(8);
  auto table = random_floats(size_t(vocab * dim), rng);
  std::vector<uint16_t> bf(table.size()), f16(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    bf[i] = f32_to_bf16(table[i]);
    f16[i] = f32_to_f16(table[i]);
  }
  int32_t ids[3] = {9, 0, 9};
  std::vector<float> out(3 * dim);
  embedding_lookup({DType::F32, vocab, dim, table.data()}, ids, 3, out.data());
  for (int t = 0; t < 3; ++t)
    for (int64_t k = 0; k < dim; ++k)
      ASSERT_EQ(table[ids[t] * dim + k], out[t * dim + k]);
  embedding_lookup({DType::BF16, vocab, dim, bf.data()}, ids, 3, out.data());
  for (int t = 0; t < 3; ++t)
    for (int64_t k = 0; k < dim; ++k)
      ASSERT_EQ(bf16_to_f32(bf[ids[t] * dim + k]), out[t * dim + k]);
  embedding_lookup({DType::F16, vocab, dim, f16.data()}, ids, 3, out.data());
  for (int t = 0; t < 3; ++t)
    for (int64_t k = 0; k < dim; ++k)
      ASSERT_EQ(f16_to_f32(f16[ids[t] * dim + k]), out[t * dim + k]);
}

TEST(Embedding, TokenIdOutsideTheVocabularyIsAnError) {
  std::vector<uint16_t> table(20);
  std::vector<float> out(4);
  int32_t big = 5, neg = -1;
  EXPECT_THROW(
      embedding_lookup({DType::BF16, 5, 4, table.data()}, &big, 1, out.data()),
      Error);
  EXPECT_THROW(
      embedding_lookup({DType::BF16, 5, 4, table.data()}, &neg, 1, out.data()),
      Error);
}

TEST_P(OpsPerIsa, SoftmaxMatchesFp64Reference) {
  std::mt19937 rng(9);
  for (int64_t n : {1, 5, 16, 33, 1000}) {
    auto x = random_floats(size_t(n), rng, -30, 30);
    auto y = x;
    softmax(y.data(), n);
    double mx = *std::max_element(x.begin(), x.end()), sum = 0;
    for (float v : x)
      sum += std::exp(v - mx);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(std::exp(x[i] - mx) / sum, y[i], 1e-6) << n << " " << i;
  }
}

TEST(Argmax, FirstLargestWinsAndNansAreSkipped) {
  float a[5] = {1, 3, 2, 3, -1};
  EXPECT_EQ(1, argmax(a, 5));
  float b[3] = {NAN, -5, NAN};
  EXPECT_EQ(1, argmax(b, 3));
  float c[2] = {NAN, NAN};
  EXPECT_EQ(0, argmax(c, 2));
  float d[3] = {-INFINITY, -INFINITY, -1e30f};
  EXPECT_EQ(2, argmax(d, 3));
}

INSTANTIATE_TEST_SUITE_P(Levels, OpsPerIsa, testing::ValuesIn(available_isas()),
                         test::isa_param_name);

} // namespace
} // namespace engine
