// engine/cuda/qwen3_cuda_model.cpp - the Qwen3 forward pass on the GPU.
//
// Per layer, as the CPU backend (and Hugging Face's modeling_qwen3.py):
// h = input_norm(x); qkv = h·Wqkvᵀ; q, k = rope(q_norm(q)), rope(k_norm(k))
// with k and v stored in the paged cache; x += attention(q)·Woᵀ (the add is
// fused into the next norm); h = post_norm(x); x += down(silu(gate(h)) ·
// up(h)). The final norm and the head run only on the rows whose logits
// are wanted.
#include "engine/cuda/qwen3_cuda_model.h"

#include "engine/cuda/dependent_launch.h"

#include "engine/cpu/ops.h"
#include "engine/cuda/attention_options.h"
#include "engine/cuda/gemv.h"
#include "engine/cuda/gemv_options.h"
#include "engine/dtype.h"
#include "engine/error.h"

#include <cmath>
#include <cstring>
#include <string>

namespace engine::cuda {

namespace {
/// Converts n elements of a stored tensor to bf16 bits.
void to_bf16(const TensorView &t, uint16_t *out) {
  const int64_t n = t.numel();
  if (t.dtype == DType::BF16) {
    std::memcpy(out, t.data, size_t(n) * 2);
    return;
  }
  std::vector<float> f(static_cast<size_t>(n));
  convert_to_f32(t.dtype, t.data, f.data(), n);
  for (int64_t i = 0; i < n; ++i)
    out[i] = f32_to_bf16(f[i]);
}

constexpr size_t kCublasWorkspace = size_t(32) << 20;
} // namespace

CudaKvCache::CudaKvCache(int layers, int num_blocks, int block_size,
                         int kv_heads, int head_dim)
    : num_blocks_(num_blocks), block_size_(block_size), kv_heads_(kv_heads),
      head_dim_(head_dim),
      data_(size_t(2) * layers * layer_words(), "allocating the KV cache") {
  check(cudaMemset(data_.get(), 0, data_.bytes()), "clearing the KV cache");
}

int64_t CudaKvCache::block_bytes(int layers, int block_size, int kv_heads,
                                 int head_dim) {
  return int64_t(2) * layers * block_size * kv_heads * head_dim * 2;
}

Qwen3CudaModel::Matrix
Qwen3CudaModel::upload_matrix(const std::vector<const TensorView *> &parts) {
  Matrix m;
  m.cols = parts[0]->shape[1];
  for (const TensorView *t : parts)
    m.rows += t->shape[0];
  m.data = DeviceBuffer<uint16_t>(size_t(m.rows * m.cols), "uploading weights");
  std::vector<uint16_t> host;
  int64_t at = 0;
  for (const TensorView *t : parts) {
    host.resize(size_t(t->numel()));
    to_bf16(*t, host.data());
    check(cudaMemcpy(m.data.get() + at, host.data(), host.size() * 2,
                     cudaMemcpyHostToDevice),
          "uploading weights");
    at += t->numel();
  }
  weight_bytes_ += int64_t(m.data.bytes());
  return m;
}

DeviceBuffer<float> Qwen3CudaModel::upload_f32(const TensorView *t) {
  std::vector<float> host(size_t(t->numel()));
  convert_to_f32(t->dtype, t->data, host.data(), t->numel());
  DeviceBuffer<float> d(host.size(), "uploading weights");
  check(cudaMemcpy(d.get(), host.data(), d.bytes(), cudaMemcpyHostToDevice),
        "uploading weights");
  weight_bytes_ += int64_t(d.bytes());
  return d;
}

Qwen3CudaModel::Qwen3CudaModel(const ModelConfig &c, const Qwen3Weights &w,
                               int max_tokens, int max_seqs, int max_context,
                               cudaStream_t stream)
    : config_(c), stream_(stream),
      attn_scale_(1.0f / std::sqrt(float(c.head_dim))) {
  const int hd = int(c.head_dim);
  const int heads = int(c.num_attention_heads);
  const int kv_heads = int(c.num_key_value_heads);
  if (!attention_supports_head_dim(hd))
    throw Error("engine: cuda: head_dim " + std::to_string(hd) +
                " is not supported by the CUDA backend's attention (16, 32, "
                "64 or 128)");
  if (!attention_supports_group(heads / kv_heads))
    throw Error("engine: cuda: " + std::to_string(heads / kv_heads) +
                " query heads per KV head is not supported by the CUDA "
                "backend's attention (1, 2, 4, 8 or 16)");
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "creating the cuBLAS handle");
  cublas_.reset(handle);
  check(cublasSetStream(handle, stream_), "setting cuBLAS's stream");
  // A workspace of our own: cuBLAS then allocates nothing while a graph is
  // being captured.
  cublas_workspace_ =
      DeviceBuffer<uint8_t>(kCublasWorkspace, "allocating cuBLAS's workspace");
  check(cublasSetWorkspace(handle, cublas_workspace_.get(), kCublasWorkspace),
        "setting cuBLAS's workspace");

  embed_ = upload_matrix({w.embed_tokens});
  if (w.lm_head != w.embed_tokens)
    lm_head_ = upload_matrix({w.lm_head});
  final_norm_ = upload_f32(w.norm);
  for (const Qwen3LayerWeights &lw : w.layers) {
    Layer l;
    l.input_norm = upload_f32(lw.input_layernorm);
    l.post_norm = upload_f32(lw.post_attention_layernorm);
    l.q_norm = upload_f32(lw.q_norm);
    l.k_norm = upload_f32(lw.k_norm);
    l.qkv = upload_matrix({lw.q_proj, lw.k_proj, lw.v_proj});
    l.o = upload_matrix({lw.o_proj});
    l.gate_up = upload_matrix({lw.gate_proj, lw.up_proj});
    l.down = upload_matrix({lw.down_proj});
    layers_.push_back(std::move(l));
  }
  // RoPE as the CPU backend computes it (Hugging Face's fp32 angles).
  RopeTable rope(hd, c.rope_theta, max_context);
  const size_t table = size_t(max_context) * (hd / 2);
  rope_cos_ = DeviceBuffer<float>(table, "uploading the RoPE table");
  rope_sin_ = DeviceBuffer<float>(table, "uploading the RoPE table");
  check(cudaMemcpy(rope_cos_.get(), rope.cos(0), table * 4,
                   cudaMemcpyHostToDevice),
        "uploading the RoPE table");
  check(cudaMemcpy(rope_sin_.get(), rope.sin(0), table * 4,
                   cudaMemcpyHostToDevice),
        "uploading the RoPE table");

  const size_t T = size_t(max_tokens), S = size_t(max_seqs);
  const size_t hidden = size_t(c.hidden_size), q_dim = size_t(heads) * hd;
  const size_t qkv_dim = q_dim + 2 * size_t(kv_heads) * hd;
  const size_t inter = size_t(c.intermediate_size);
  const char *what = "allocating activations";
  x_ = DeviceBuffer<float>(T * hidden, what);
  h_ = DeviceBuffer<uint16_t>(T * hidden, what);
  qkv_ = DeviceBuffer<uint16_t>(T * qkv_dim, what);
  q_ = DeviceBuffer<uint16_t>(T * q_dim, what);
  attn_ = DeviceBuffer<uint16_t>(T * q_dim, what);
  delta_ = DeviceBuffer<uint16_t>(T * hidden, what);
  gate_up_ = DeviceBuffer<uint16_t>(T * 2 * inter, what);
  act_ = DeviceBuffer<uint16_t>(T * inter, what);
  last_ = DeviceBuffer<uint16_t>(S * hidden, what);
  logits_ = DeviceBuffer<float>(S * size_t(c.vocab_size), what);
  attn_workspace_ = DeviceBuffer<float>(
      size_t(decode_attention_workspace(max_seqs, heads, hd, max_context)),
      what);
  attn_tickets_ = DeviceBuffer<int>(S * size_t(kv_heads), what);
  check(cudaMemset(attn_tickets_.get(), 0, attn_tickets_.bytes()),
        "clearing the attention tickets");
}

void Qwen3CudaModel::gemm(const uint16_t *x, int n, const Matrix &w, void *y,
                          bool y_f32, GemvOptions gemv) {
  if (gemv_supports(n, int(w.cols))) {
    launch_gemv(w.data.get(), int(w.rows), int(w.cols), x, n, y, y_f32, stream_,
                gemv);
    return;
  }
  // Row-major y = x·wᵀ is column-major yᵀ = w·xᵀ with w read transposed.
  const float one = 1.f, zero = 0.f;
  check(cublasGemmEx(cublas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, int(w.rows), n,
                     int(w.cols), &one, w.data.get(), CUDA_R_16BF, int(w.cols),
                     x, CUDA_R_16BF, int(w.cols), &zero, y,
                     y_f32 ? CUDA_R_32F : CUDA_R_16BF, int(w.rows),
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "a cuBLAS matrix product");
}

void Qwen3CudaModel::forward(const StepInputs &s, const CudaKvCache &kv) {
  const ModelConfig &c = config_;
  const int n = s.num_tokens;
  const int hidden = int(c.hidden_size), hd = int(c.head_dim);
  const int heads = int(c.num_attention_heads);
  const float eps = float(c.rms_norm_eps);
  const QkvLayout qkv_layout{heads, int(c.num_key_value_heads), hd};
  const DecodeLaunches scope(s.decode);
  const GemvOptions gemv = gemv_options_now(); // the same for every launch
  const PrefillStaging staging = prefill_staging();
  const bool fold = decode_folds_qk_norm();

  launch_embedding(embed_.data.get(), c.vocab_size, hidden, s.token_ids, n,
                   x_.get(), stream_);
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer &l = layers_[i];
    launch_add_rms_norm(x_.get(), i > 0 ? delta_.get() : nullptr,
                        l.input_norm.get(), nullptr, n, hidden, eps, h_.get(),
                        stream_);
    gemm(h_.get(), n, l.qkv, qkv_.get(), false, gemv);
    const QkNormRope qk{qkv_.get(),      qkv_layout,   l.q_norm.get(),
                        l.k_norm.get(),  eps,          rope_cos_.get(),
                        rope_sin_.get(), s.positions,  s.slot_mapping,
                        q_.get(),        kv.k(int(i)), kv.v(int(i))};
    if (!(s.decode && fold))
      launch_qk_norm_rope_store(qk.qkv, n, qk.layout, qk.q_norm, qk.k_norm,
                                qk.eps, qk.rope_cos, qk.rope_sin, qk.positions,
                                qk.slot_mapping, qk.q_out, qk.k_cache,
                                qk.v_cache, stream_);
    const PagedKvView view{
        kv.k(int(i)), kv.v(int(i)),   kv.block_size(), qkv_layout.kv_heads,
        hd,           s.block_tables, s.table_width,   s.context_lens};
    if (s.decode)
      launch_decode_attention(q_.get(), heads, s.num_seqs, s.max_context, view,
                              attn_scale_, attn_workspace_.get(),
                              attn_tickets_.get(), attn_.get(), stream_,
                              fold ? &qk : nullptr);
    else
      launch_prefill_attention(q_.get(), heads, s.cu_seqlens_q, s.num_seqs,
                               s.max_q_len, view, attn_scale_, attn_.get(),
                               stream_, staging);
    gemm(attn_.get(), n, l.o, delta_.get(), false, gemv);
    launch_add_rms_norm(x_.get(), delta_.get(), l.post_norm.get(), nullptr, n,
                        hidden, eps, h_.get(), stream_);
    gemm(h_.get(), n, l.gate_up, gate_up_.get(), false, gemv);
    if (gemv_supports(n, int(l.down.cols))) { // SwiGLU folded into it
      launch_gemv_swiglu(l.down.data.get(), int(l.down.rows), int(l.down.cols),
                         gate_up_.get(), n, delta_.get(), stream_, gemv);
    } else {
      launch_silu_mul(gate_up_.get(), n, int(c.intermediate_size), act_.get(),
                      stream_);
      gemm(act_.get(), n, l.down, delta_.get(), false, gemv);
    }
  }
  // Decode wants every row; prefill the last token of each sequence.
  launch_add_rms_norm(x_.get(), delta_.get(), final_norm_.get(),
                      s.decode ? nullptr : s.logits_rows, s.num_seqs, hidden,
                      eps, last_.get(), stream_);
  gemm(last_.get(), s.num_seqs, lm_head_.rows ? lm_head_ : embed_,
       logits_.get(), true, gemv);
  check_launch("the forward pass's kernels");
}

} // namespace engine::cuda
