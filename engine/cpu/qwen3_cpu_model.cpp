// engine/qwen3_cpu_model.cpp - the Qwen3 forward pass on the CPU.
//
// Per layer, as Hugging Face's modeling_qwen3.py: x += o_proj(attention(
// rope(q_norm(q)), rope(k_norm(k)), v)) over h = input_norm(x); then
// x += down(silu(gate(h)) * up(h)) over h = post_norm(x). The final norm and
// the head run only on the rows whose logits are wanted.
#include "engine/cpu/qwen3_cpu_model.h"

#include "engine/cpu/attention.h"
#include "engine/env_switch.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace engine {

namespace {
WeightMatrix matrix(const TensorView *t) {
  return WeightMatrix{t->dtype, t->shape[0], t->shape[1], t->data};
}

std::vector<float> to_f32(const TensorView *t) {
  std::vector<float> out(size_t(t->numel()));
  convert_to_f32(t->dtype, t->data, out.data(), t->numel());
  return out;
}

// ENGINE_HUGE_PAGES: 1 copies the projections and the head into huge pages
// (huge_pages.h), 0 uses them in place from the checkpoint. The default is
// the copy wherever transparent huge pages are allowed: on the 2-vCPU AMD
// EPYC Zen 4 VM the copy ran batch-1 decode at 97-101% of the read bound
// on one thread against 92-93% in place (81-88% once the file's pages had
// been read back piecemeal), and at 94-100% on two against 90-91%.
bool weights_in_huge_pages() {
  return env_switch("ENGINE_HUGE_PAGES", transparent_huge_pages_allowed(),
                    "0 (the weights used in place) or 1 (copied into 2 MiB "
                    "pages, the default where transparent huge pages are "
                    "allowed)");
}

void grow(std::vector<float> &v, size_t n) {
  if (v.size() < n)
    v.resize(n);
}
} // namespace

Qwen3CpuModel::Qwen3CpuModel(ThreadPool &pool, const ModelConfig &config,
                             const Qwen3Weights &w, int max_positions)
    : config_(config), embed_(matrix(w.embed_tokens)),
      lm_head_(matrix(w.lm_head)), final_norm_(to_f32(w.norm)),
      rope_(config.head_dim, config.rope_theta, max_positions),
      attn_scale_(1.0f / std::sqrt(float(config.head_dim))) {
  for (const Qwen3LayerWeights &lw : w.layers) {
    Layer l;
    l.input_norm = to_f32(lw.input_layernorm);
    l.post_norm = to_f32(lw.post_attention_layernorm);
    l.q_norm = to_f32(lw.q_norm);
    l.k_norm = to_f32(lw.k_norm);
    l.q = matrix(lw.q_proj);
    l.k = matrix(lw.k_proj);
    l.v = matrix(lw.v_proj);
    l.o = matrix(lw.o_proj);
    l.gate = matrix(lw.gate_proj);
    l.up = matrix(lw.up_proj);
    l.down = matrix(lw.down_proj);
    layers_.push_back(std::move(l));
  }
  if (weights_in_huge_pages())
    move_to_huge_pages(pool, w.lm_head->file_mapped);
}

void Qwen3CpuModel::move_to_huge_pages(ThreadPool &pool, bool file_mapped) {
  std::vector<WeightMatrix *> all;
  for (Layer &l : layers_)
    for (WeightMatrix *w : {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down})
      all.push_back(w);
  all.push_back(&lm_head_);
  auto bytes = [](const WeightMatrix *w) {
    return size_t(w->rows * w->cols) * dtype_size(w->dtype);
  };
  auto padded = [](size_t b) { return (b + 63) / 64 * 64; };
  // Where each matrix goes; a head tied to the embeddings is one matrix,
  // copied once.
  std::vector<CopyPiece> pieces;
  std::unordered_map<const void *, size_t> offset_of;
  size_t total = 0;
  for (const WeightMatrix *w : all)
    if (offset_of.emplace(w->data, total).second) {
      pieces.push_back({w->data, total, bytes(w)});
      total += padded(bytes(w));
    }
  weights_ = HugePageBuffer(total);
  char *to = weights_.data();
  // On all threads: fresh memory is most of what the copy costs, and
  // faults on two threads run side by side. The checkpoint's pages are not
  // read again: unmapped from this process as they are copied, left in the
  // page cache for the next process that loads the model. Not MADV_PAGEOUT,
  // which evicted them: every load then read the file from disk, and a
  // later run using the weights in place got them back a page at a time,
  // scattered, and read them 15% slower.
  ParallelCopyOptions how;
  how.drop_file_pages = file_mapped;
  copy_in_parallel(pool, to, pieces, how);
  for (WeightMatrix *w : all) {
    char *copy = to + offset_of.at(w->data);
    if (embed_.data == w->data)
      embed_.data = copy;
    w->data = copy;
  }
}

std::vector<GemvChoice>
Qwen3CpuModel::choose_gemv_plans(ThreadPool &pool, const GemvTuning &tuning) {
  std::vector<WeightMatrix *> all;
  for (Layer &l : layers_)
    for (WeightMatrix *w : {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down})
      all.push_back(w);
  all.push_back(&lm_head_);
  // Which plan streams fastest depends on the memory it streams (one thread
  // of the Zen 4 VM: one chain of sums read the copy in 2 MiB pages a
  // quarter faster than two chains, and the file's pages no faster).
  GemvTuning here = tuning;
  here.memory = weights_.size() == 0 ? "in place"
                : weights_.huge_bytes() * 2 >= weights_.size()
                    ? "in 2 MiB pages"
                    : "copied, 4 KiB pages";
  std::vector<GemvChoice> choices = engine::choose_gemv_plans(
      pool, std::vector<const WeightMatrix *>(all.begin(), all.end()), here);
  for (WeightMatrix *w : all)
    for (const GemvChoice &c : choices)
      if (w->dtype == DType::BF16 && w->rows == c.rows && w->cols == c.cols)
        w->gemv = c.plan;
  return choices;
}

void Qwen3CpuModel::forward(ThreadPool &pool, const ForwardBatch &batch,
                            KvCache &kv, float *logits) {
  const int64_t n = batch.num_tokens();
  const int64_t hidden = config_.hidden_size;
  const int64_t q_dim = int64_t(config_.num_attention_heads) * config_.head_dim;
  const int64_t kv_dim =
      int64_t(config_.num_key_value_heads) * config_.head_dim;
  grow(x_, n * hidden);
  grow(h_, n * std::max(hidden, q_dim));
  grow(q_, n * q_dim);
  grow(k_, n * kv_dim);
  grow(v_, n * kv_dim);
  grow(attn_, n * q_dim);
  grow(gate_, n * config_.intermediate_size);
  grow(up_, n * config_.intermediate_size);

  // Each block leaves its output in h_ and the next norm adds it to the
  // residual stream x_ (add_rms_norm: one pass, on every thread); the last
  // block's output is added only to the rows that produce logits.
  embedding_lookup(embed_, batch.token_ids.data(), n, x_.data());
  for (size_t i = 0; i < layers_.size(); ++i) {
    attention_block(pool, batch, layers_[i], kv.layer(int(i)), n,
                    /*pending_residual=*/i > 0);
    mlp_block(pool, layers_[i], n);
  }

  const int64_t rows = int64_t(batch.logits_rows.size());
  grow(last_, rows * hidden);
  for (int64_t r = 0; r < rows; ++r) {
    const float *x = &x_[batch.logits_rows[r] * hidden];
    const float *d = &h_[batch.logits_rows[r] * hidden];
    for (int64_t k = 0; k < hidden; ++k)
      last_[r * hidden + k] = x[k] + d[k];
  }
  rms_norm(last_.data(), final_norm_.data(), last_.data(), rows, hidden,
           float(config_.rms_norm_eps));
  matmul(pool, last_.data(), rows, lm_head_, logits);
}

void Qwen3CpuModel::attention_block(ThreadPool &pool, const ForwardBatch &batch,
                                    const Layer &l, const PagedKv &kv,
                                    int64_t n, bool pending_residual) {
  const int64_t hidden = config_.hidden_size, hd = config_.head_dim;
  const int heads = config_.num_attention_heads;
  const int kv_heads = config_.num_key_value_heads;
  const float eps = float(config_.rms_norm_eps);

  if (pending_residual)
    add_rms_norm(pool, x_.data(), h_.data(), l.input_norm.data(), h_.data(), n,
                 hidden, eps);
  else
    rms_norm(pool, x_.data(), l.input_norm.data(), h_.data(), n, hidden, eps);
  matmul(pool, h_.data(), n, l.q, q_.data());
  matmul(pool, h_.data(), n, l.k, k_.data());
  matmul(pool, h_.data(), n, l.v, v_.data());
  // q_norm and k_norm normalise each head before RoPE.
  rms_norm(pool, q_.data(), l.q_norm.data(), q_.data(), n * heads, hd, eps);
  rms_norm(pool, k_.data(), l.k_norm.data(), k_.data(), n * kv_heads, hd, eps);
  rope(rope_, batch.positions.data(), n, q_.data(), heads);
  rope(rope_, batch.positions.data(), n, k_.data(), kv_heads);
  store_kv(k_.data(), v_.data(), batch.slot_mapping.data(), n, kv);

  AttentionBatch ab;
  ab.num_seqs = batch.num_seqs();
  ab.cu_seqlens_q = batch.cu_seqlens_q.data();
  ab.context_lens = batch.context_lens.data();
  ab.block_tables = batch.block_tables.data();
  ab.max_blocks = batch.max_blocks;
  paged_attention(pool, q_.data(), heads, ab, kv, attn_scale_, attn_.data());

  matmul(pool, attn_.data(), n, l.o, h_.data());
}

void Qwen3CpuModel::mlp_block(ThreadPool &pool, const Layer &l, int64_t n) {
  const int64_t hidden = config_.hidden_size;
  add_rms_norm(pool, x_.data(), h_.data(), l.post_norm.data(), h_.data(), n,
               hidden, float(config_.rms_norm_eps));
  matmul(pool, h_.data(), n, l.gate, gate_.data());
  matmul(pool, h_.data(), n, l.up, up_.data());
  silu_mul(gate_.data(), up_.data(), gate_.data(), n,
           config_.intermediate_size);
  matmul(pool, gate_.data(), n, l.down, h_.data());
}

} // namespace engine
