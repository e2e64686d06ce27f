// engine/cpu/ops.h - the small fused kernels of a transformer layer on fp32
// activations: RMS norm, SiLU gating, rotary position embedding, embedding
// lookup, conversions, softmax and argmax.
//
// Each runs with AVX-512 when the active level allows (cpu_features.h) and
// portable C++ otherwise. The plain forms run on the calling thread (decode
// batches are a few rows); the ThreadPool forms split rows across threads
// for prefill.
#pragma once

#include "engine/cpu/matmul.h"
#include "engine/cpu/thread_pool.h"
#include "engine/dtype.h"

#include <cstdint>
#include <vector>

namespace engine {

/// out[r] = x[r] / sqrt(mean(x[r]²) + eps) · weight, for rows of `dim`
/// (the weight multiplies after normalizing, as Hugging Face does). out may
/// be x.
void rms_norm(const float *x, const float *weight, float *out, int64_t rows,
              int64_t dim, float eps);
void rms_norm(ThreadPool &pool, const float *x, const float *weight, float *out,
              int64_t rows, int64_t dim, float eps);

/// residual[r] += x[r]; out[r] = rms_norm(residual[r]): the residual add and
/// the next norm in one pass. out may be x, not residual.
void add_rms_norm(float *residual, const float *x, const float *weight,
                  float *out, int64_t rows, int64_t dim, float eps);
void add_rms_norm(ThreadPool &pool, float *residual, const float *x,
                  const float *weight, float *out, int64_t rows, int64_t dim,
                  float eps);

/// out[r][i] = silu(gate[r][i]) · up[r][i], silu(g) = g / (1 + e^−g), with
/// gate and up in one fused [rows][2·dim] matrix (gate first, as a merged
/// gate/up projection produces it). out is [rows][dim].
void silu_mul(const float *gate_up, float *out, int64_t rows, int64_t dim);
void silu_mul(ThreadPool &pool, const float *gate_up, float *out, int64_t rows,
              int64_t dim);
/// The same with separate [rows][dim] gate and up.
void silu_mul(const float *gate, const float *up, float *out, int64_t rows,
              int64_t dim);

/// cos and sin of the rotary angles pos·θ^(−2i/d), i < d/2, for positions
/// [0, max_positions), computed as Hugging Face computes them (fp32 inverse
/// frequencies and angles) so results match the reference implementation.
class RopeTable {
public:
  /// Throws engine::Error unless head_dim is even and positive, theta > 0 and
  /// max_positions ≥ 1.
  RopeTable(int head_dim, double theta, int64_t max_positions);
  int head_dim() const { return head_dim_; }
  int64_t max_positions() const { return max_positions_; }
  /// head_dim/2 values for position pos (0 ≤ pos < max_positions()).
  const float *cos(int64_t pos) const { return cos_.data() + pos * half(); }
  const float *sin(int64_t pos) const { return sin_.data() + pos * half(); }

private:
  int64_t half() const { return head_dim_ / 2; }
  int head_dim_;
  int64_t max_positions_;
  std::vector<float> cos_, sin_;
};

/// Rotates every head of token t (NeoX "rotate half" pairing: element i with
/// i + d/2) by the angles of positions[t], in place. x is
/// [n_tokens][num_heads][head_dim] with the table's head_dim; call once for q
/// and once for k. Throws engine::Error for a position outside the table.
void rope(const RopeTable &table, const int32_t *positions, int64_t n_tokens,
          float *x, int64_t num_heads);

/// out[t] = row ids[t] of the [vocab, dim] table, widened to fp32 (out is
/// [n][emb.cols]). Throws engine::Error for an id outside [0, emb.rows).
void embedding_lookup(const WeightMatrix &emb, const int32_t *ids, int64_t n,
                      float *out);

/// n elements of type `dtype` to fp32.
void convert_to_f32(DType dtype, const void *src, float *dst, int64_t n);

/// In place: x = e^(x − max) / Σ e^(x − max) over n elements (n ≥ 1).
void softmax(float *x, int64_t n);

/// Index of the largest element (the first one on ties; NaNs are skipped,
/// and 0 is returned when all are NaN). Needs n ≥ 1.
int64_t argmax(const float *x, int64_t n);

} // namespace engine
