// engine/cpu/ops.cpp - the element-wise ops of ops.h: argument checks, the
// portable versions, and the choice of the AVX-512 ones (ops_avx512.cpp).
#include "engine/cpu/ops.h"

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/ops_kernels.h"
#include "engine/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace engine {
namespace {

bool use_avx512() { return active_isa() >= Isa::Avx512; }

// Below this many elements a parallel dispatch costs more than it saves.
constexpr int64_t kParallelMin = 1 << 14;

template <typename Fn>
void for_rows(ThreadPool &pool, int64_t rows, int64_t dim, const Fn &fn) {
  if (rows * dim < kParallelMin || pool.size() == 1) {
    fn(int64_t(0), rows);
    return;
  }
  pool.run([&](int t, int n) {
    Range r = split_range(rows, t, n);
    if (r.size() > 0)
      fn(r.begin, r.end);
  });
}

void rms_norm_scalar(float *residual, const float *x, const float *weight,
                     float *out, int64_t r0, int64_t r1, int64_t dim,
                     float eps) {
  for (int64_t r = r0; r < r1; ++r) {
    const float *src = x + r * dim;
    float *res = residual ? residual + r * dim : nullptr;
    float sum = 0;
    for (int64_t k = 0; k < dim; ++k) {
      float v = src[k];
      if (res)
        v = res[k] += v;
      sum += v * v;
    }
    float scale = 1.0f / std::sqrt(sum / float(dim) + eps);
    const float *normed = res ? res : src;
    for (int64_t k = 0; k < dim; ++k)
      out[r * dim + k] = normed[k] * scale * weight[k];
  }
}

void silu_mul_scalar(const float *gate, const float *up, int64_t in_stride,
                     float *out, int64_t r0, int64_t r1, int64_t dim) {
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t k = 0; k < dim; ++k) {
      float g = gate[r * in_stride + k];
      out[r * dim + k] = g / (1.0f + std::exp(-g)) * up[r * in_stride + k];
    }
}

void rms_norm_any(ThreadPool *pool, float *residual, const float *x,
                  const float *weight, float *out, int64_t rows, int64_t dim,
                  float eps) {
  if (rows < 0 || dim < 1)
    throw Error("rms_norm: bad shape [" + std::to_string(rows) + ", " +
                std::to_string(dim) + "]");
  auto kernel = use_avx512() ? cpu_detail::rms_norm_avx512 : rms_norm_scalar;
  auto fn = [&](int64_t r0, int64_t r1) {
    kernel(residual, x, weight, out, r0, r1, dim, eps);
  };
  if (pool)
    for_rows(*pool, rows, dim, fn);
  else
    fn(0, rows);
}

void silu_mul_any(ThreadPool *pool, const float *gate, const float *up,
                  int64_t in_stride, float *out, int64_t rows, int64_t dim) {
  if (rows < 0 || dim < 1)
    throw Error("silu_mul: bad shape [" + std::to_string(rows) + ", " +
                std::to_string(dim) + "]");
  auto kernel = use_avx512()                ? cpu_detail::silu_mul_avx512
                : active_isa() >= Isa::Avx2 ? cpu_detail::silu_mul_avx2
                                            : silu_mul_scalar;
  auto fn = [&](int64_t r0, int64_t r1) {
    kernel(gate, up, in_stride, out, r0, r1, dim);
  };
  if (pool)
    for_rows(*pool, rows, dim, fn);
  else
    fn(0, rows);
}

} // namespace

void rms_norm(const float *x, const float *weight, float *out, int64_t rows,
              int64_t dim, float eps) {
  rms_norm_any(nullptr, nullptr, x, weight, out, rows, dim, eps);
}

void rms_norm(ThreadPool &pool, const float *x, const float *weight, float *out,
              int64_t rows, int64_t dim, float eps) {
  rms_norm_any(&pool, nullptr, x, weight, out, rows, dim, eps);
}

void add_rms_norm(float *residual, const float *x, const float *weight,
                  float *out, int64_t rows, int64_t dim, float eps) {
  rms_norm_any(nullptr, residual, x, weight, out, rows, dim, eps);
}

void add_rms_norm(ThreadPool &pool, float *residual, const float *x,
                  const float *weight, float *out, int64_t rows, int64_t dim,
                  float eps) {
  rms_norm_any(&pool, residual, x, weight, out, rows, dim, eps);
}

void silu_mul(const float *gate_up, float *out, int64_t rows, int64_t dim) {
  silu_mul_any(nullptr, gate_up, gate_up + dim, 2 * dim, out, rows, dim);
}

void silu_mul(ThreadPool &pool, const float *gate_up, float *out, int64_t rows,
              int64_t dim) {
  silu_mul_any(&pool, gate_up, gate_up + dim, 2 * dim, out, rows, dim);
}

void silu_mul(const float *gate, const float *up, float *out, int64_t rows,
              int64_t dim) {
  silu_mul_any(nullptr, gate, up, dim, out, rows, dim);
}

RopeTable::RopeTable(int head_dim, double theta, int64_t max_positions)
    : head_dim_(head_dim), max_positions_(max_positions) {
  if (head_dim < 2 || head_dim % 2 != 0)
    throw Error("rope: head_dim " + std::to_string(head_dim) +
                " must be even and positive");
  if (!(theta > 0))
    throw Error("rope: theta " + std::to_string(theta) + " must be positive");
  if (max_positions < 1)
    throw Error("rope: max_positions " + std::to_string(max_positions) +
                " must be at least 1");
  const int64_t h = half();
  cos_.resize(size_t(max_positions * h));
  sin_.resize(size_t(max_positions * h));
  // As Hugging Face and Nano-vLLM: inv_freq = 1 / θ^(2i/d) and the angle
  // pos·inv_freq in fp32; cos and sin of that fp32 angle, rounded once.
  std::vector<float> inv_freq(static_cast<size_t>(h));
  for (int64_t i = 0; i < h; ++i)
    inv_freq[i] = 1.0f / std::pow(float(theta), float(2 * i) / float(head_dim));
  for (int64_t p = 0; p < max_positions; ++p)
    for (int64_t i = 0; i < h; ++i) {
      float angle = float(p) * inv_freq[i];
      cos_[p * h + i] = float(std::cos(double(angle)));
      sin_[p * h + i] = float(std::sin(double(angle)));
    }
}

void rope(const RopeTable &table, const int32_t *positions, int64_t n_tokens,
          float *x, int64_t num_heads) {
  const int64_t d = table.head_dim(), h = d / 2;
  const bool avx512 = use_avx512();
  for (int64_t t = 0; t < n_tokens; ++t) {
    int64_t pos = positions[t];
    if (pos < 0 || pos >= table.max_positions())
      throw Error("rope: position " + std::to_string(pos) +
                  " is outside the table [0, " +
                  std::to_string(table.max_positions()) + ")");
    const float *c = table.cos(pos), *s = table.sin(pos);
    for (int64_t head = 0; head < num_heads; ++head) {
      float *v = x + (t * num_heads + head) * d;
      if (avx512) {
        cpu_detail::rope_head_avx512(v, c, s, h);
        continue;
      }
      for (int64_t i = 0; i < h; ++i) {
        float a = v[i], b = v[i + h];
        v[i] = a * c[i] - b * s[i];
        v[i + h] = b * c[i] + a * s[i];
      }
    }
  }
}

void embedding_lookup(const WeightMatrix &emb, const int32_t *ids, int64_t n,
                      float *out) {
  const size_t row_bytes = size_t(emb.cols) * dtype_size(emb.dtype);
  for (int64_t t = 0; t < n; ++t) {
    if (ids[t] < 0 || ids[t] >= emb.rows)
      throw Error("embedding: token id " + std::to_string(ids[t]) +
                  " is outside the vocabulary [0, " + std::to_string(emb.rows) +
                  ")");
    const void *row =
        static_cast<const uint8_t *>(emb.data) + size_t(ids[t]) * row_bytes;
    convert_to_f32(emb.dtype, row, out + t * emb.cols, emb.cols);
  }
}

void convert_to_f32(DType dtype, const void *src, float *dst, int64_t n) {
  if (use_avx512()) {
    cpu_detail::convert_to_f32_avx512(dtype, src, dst, n);
    return;
  }
  const uint16_t *h = static_cast<const uint16_t *>(src);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = dtype == DType::F32   ? static_cast<const float *>(src)[i]
             : dtype == DType::F16 ? f16_to_f32(h[i])
                                   : bf16_to_f32(h[i]);
}

void softmax(float *x, int64_t n) {
  if (n < 1)
    return;
  if (use_avx512()) {
    cpu_detail::softmax_avx512(x, n);
    return;
  }
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i)
    mx = std::max(mx, x[i]);
  float sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += x[i] = std::exp(x[i] - mx);
  for (int64_t i = 0; i < n; ++i)
    x[i] /= sum;
}

int64_t argmax(const float *x, int64_t n) {
  // A plain scan: it runs once per generated token over the vocabulary
  // (150k floats, ~20 µs), far below the LM head's matmul.
  int64_t best = -1;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isnan(x[i]) && (best < 0 || x[i] > x[best]))
      best = i;
  return best < 0 ? 0 : best;
}

} // namespace engine
