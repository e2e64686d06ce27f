// engine/cuda/qwen3_cuda_model.h - the Qwen3 decoder on the GPU: bf16
// weights and activations, an fp32 residual stream, cuBLAS for every
// projection and this backend's own kernels (kernels.h) for the rest.
//
// Every buffer is allocated once, for the largest step, so a forward pass
// allocates nothing and a decode pass can be captured into a CUDA graph.
#pragma once

#include "engine/cuda/device_buffer.h"
#include "engine/cuda/gemv.h"
#include "engine/cuda/kernels.h"
#include "engine/io/model_config.h"
#include "engine/qwen3_weights.h"

#include <cublas_v2.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace engine::cuda {

/// The paged KV cache of every layer: [layers][k|v][slots][kv_heads]
/// [head_dim] bf16, slot = block · block_size + offset.
class CudaKvCache {
public:
  CudaKvCache(int layers, int num_blocks, int block_size, int kv_heads,
              int head_dim);
  static int64_t block_bytes(int layers, int block_size, int kv_heads,
                             int head_dim);
  uint16_t *k(int layer) const {
    return data_.get() + layer_words() * (2 * layer);
  }
  uint16_t *v(int layer) const { return k(layer) + layer_words(); }
  int num_blocks() const { return num_blocks_; }
  int block_size() const { return block_size_; }

private:
  int64_t layer_words() const {
    return int64_t(num_blocks_) * block_size_ * kv_heads_ * head_dim_;
  }
  int num_blocks_, block_size_, kv_heads_, head_dim_;
  DeviceBuffer<uint16_t> data_;
};

/// Device pointers to one step's inputs (the uploaded StepLayout).
struct StepInputs {
  const int32_t *token_ids, *positions, *slot_mapping;
  const int32_t *cu_seqlens_q, *context_lens, *block_tables, *logits_rows;
  int table_width;
  int num_tokens, num_seqs;
  bool decode;     ///< one token per sequence, row s = sequence s
  int max_q_len;   ///< prefill: longest query range
  int max_context; ///< longest context (decode: the grid's bound)
};

class Qwen3CudaModel {
public:
  /// Uploads the weights (converted to bf16; q/k/v and gate/up fused) and
  /// allocates activations for steps of up to max_tokens tokens in up to
  /// max_seqs sequences of up to max_context tokens. Throws engine::Error
  /// for a head_dim or GQA group the kernels lack, or a CUDA failure.
  Qwen3CudaModel(const ModelConfig &config, const Qwen3Weights &weights,
                 int max_tokens, int max_seqs, int max_context,
                 cudaStream_t stream);
  Qwen3CudaModel(const Qwen3CudaModel &) = delete;
  Qwen3CudaModel &operator=(const Qwen3CudaModel &) = delete;

  /// Runs every layer over the step on the model's stream and leaves
  /// [num_seqs][vocab] fp32 logits in logits() (rows: the logits_rows
  /// tokens; decode: every token). Asynchronous; launches only.
  void forward(const StepInputs &step, const CudaKvCache &kv);

  float *logits() const { return logits_.get(); }
  const ModelConfig &config() const { return config_; }
  int64_t weight_bytes() const { return weight_bytes_; }

private:
  struct Matrix {
    DeviceBuffer<uint16_t> data;
    int64_t rows = 0, cols = 0; ///< [out][in], row-major
  };
  struct Layer {
    DeviceBuffer<float> input_norm, post_norm, q_norm, k_norm;
    Matrix qkv, o, gate_up, down;
  };
  Matrix upload_matrix(const std::vector<const TensorView *> &parts);
  DeviceBuffer<float> upload_f32(const TensorView *t);
  /// y[n][w.rows] = x[n][w.cols] · wᵀ (y bf16, or fp32 when y_f32); `gemv`
  /// says how the GEMV kernel (a few rows of x) reads w.
  void gemm(const uint16_t *x, int n, const Matrix &w, void *y, bool y_f32,
            GemvOptions gemv);

  ModelConfig config_;
  struct CublasDestroy {
    void operator()(cublasHandle_t h) const { cublasDestroy(h); }
  };
  cudaStream_t stream_;
  DeviceBuffer<uint8_t> cublas_workspace_;
  // Destroyed before its workspace, and on a constructor that throws.
  std::unique_ptr<cublasContext, CublasDestroy> cublas_;
  Matrix embed_, lm_head_; // lm_head_ empty when tied to embed_
  DeviceBuffer<float> final_norm_, rope_cos_, rope_sin_;
  std::vector<Layer> layers_;
  float attn_scale_;
  int64_t weight_bytes_ = 0;
  // Activations.
  DeviceBuffer<float> x_, attn_workspace_, logits_;
  DeviceBuffer<int> attn_tickets_;
  DeviceBuffer<uint16_t> h_, qkv_, q_, attn_, delta_, gate_up_, act_, last_;
};

} // namespace engine::cuda
