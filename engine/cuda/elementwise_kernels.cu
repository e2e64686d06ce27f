// engine/cuda/elementwise_kernels.cu - the row-wise kernels of a layer:
// embedding lookup, residual add with RMS norm, q/k norm with RoPE and the
// paged KV store, SwiGLU. Each reads bf16, accumulates in fp32 and rounds
// once when it writes, as the CPU backend's kernels do.
#include "engine/cuda/device_math.cuh"
#include "engine/cuda/qk_norm_rope.cuh"

#include <cuda_bf16.h>

namespace engine::cuda {

namespace {

/// Sum over the block (blockDim.x a multiple of 32, at most 1024).
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads(); // partial may still be read by a previous call
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / 32;
  v = lane < warps ? partial[lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void embedding_kernel(const uint16_t *embed, int64_t vocab,
                                 int hidden, const int32_t *ids, float *x) {
  wait_for_previous_kernel();
  const int t = blockIdx.x;
  const int64_t id = ids[t];
  float *row = x + int64_t(t) * hidden;
  const bool ok = id >= 0 && id < vocab;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x)
    row[i] = ok ? bf(embed[id * hidden + i]) : 0.f;
}

__global__ void add_rms_norm_kernel(float *residual, const uint16_t *delta,
                                    const float *weight, const int32_t *rows,
                                    int dim, float eps, uint16_t *out) {
  wait_for_previous_kernel();
  const int r = blockIdx.x;
  const int64_t i = rows ? rows[r] : r;
  float *x = residual + i * dim;
  const uint16_t *d = delta ? delta + i * dim : nullptr;
  float ss = 0;
  for (int k = threadIdx.x; k < dim; k += blockDim.x) {
    float v = x[k];
    if (d) {
      v += bf(d[k]);
      x[k] = v;
    }
    ss += v * v;
  }
  const float inv = rsqrtf(block_sum(ss) / dim + eps);
  uint16_t *o = out + int64_t(r) * dim;
  for (int k = threadIdx.x; k < dim; k += blockDim.x)
    o[k] = to_bf(x[k] * inv * weight[k]);
}

// One warp per (token, head); heads of q, then k, then v (norm_rope_head).
constexpr int kHeadsPerBlock = 4;
constexpr int kMaxHeadDim = 256;
__global__ void
qk_norm_rope_store_kernel(const uint16_t *qkv, QkvLayout L, const float *q_norm,
                          const float *k_norm, float eps, const float *rope_cos,
                          const float *rope_sin, const int32_t *positions,
                          const int32_t *slot_mapping, uint16_t *q_out,
                          uint16_t *k_cache, uint16_t *v_cache) {
  __shared__ float buf[kHeadsPerBlock][kMaxHeadDim];
  wait_for_previous_kernel();
  const int t = blockIdx.x;
  const int warp = threadIdx.x / 32;
  const int hd = L.head_dim, half = hd / 2;
  const int total = L.heads + 2 * L.kv_heads;
  const int64_t row = int64_t(t) * total * hd;
  const int64_t slot = slot_mapping[t];
  const int pos = positions[t];
  for (int head = blockIdx.y * kHeadsPerBlock + warp; head < total;
       head += gridDim.y * kHeadsPerBlock) {
    const uint16_t *src = qkv + row + int64_t(head) * hd;
    if (head >= L.heads + L.kv_heads) { // v: straight to the cache
      if (slot >= 0)
        copy_head(src, hd,
                  v_cache +
                      (slot * L.kv_heads + head - L.heads - L.kv_heads) * hd);
      continue;
    }
    const bool is_q = head < L.heads;
    uint16_t *dst;
    if (is_q)
      dst = q_out + (int64_t(t) * L.heads + head) * hd;
    else if (slot >= 0)
      dst = k_cache + (slot * L.kv_heads + head - L.heads) * hd;
    else
      continue; // a k with nowhere to go
    norm_rope_head(src, is_q ? q_norm : k_norm, hd, eps,
                   rope_cos + int64_t(pos) * half,
                   rope_sin + int64_t(pos) * half, buf[warp], dst);
  }
}

__global__ void silu_mul_kernel(const uint16_t *gate_up, int dim,
                                uint16_t *out) {
  wait_for_previous_kernel();
  const int t = blockIdx.y;
  const uint16_t *g = gate_up + int64_t(t) * 2 * dim;
  const uint16_t *u = g + dim;
  uint16_t *o = out + int64_t(t) * dim;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < dim;
       i += gridDim.x * blockDim.x) {
    const float x = bf(g[i]);
    o[i] = to_bf(x / (1.f + __expf(-x)) * bf(u[i]));
  }
}

int norm_threads(int dim) {
  const int t = ((dim + 31) / 32) * 32;
  return t < 1024 ? t : 1024;
}
} // namespace

void launch_embedding(const uint16_t *embed, int64_t vocab, int hidden,
                      const int32_t *ids, int n, float *x,
                      cudaStream_t stream) {
  if (n > 0)
    launch_dependent(embedding_kernel, n, norm_threads(hidden), 0, stream,
                     embed, vocab, hidden, ids, x);
}

void launch_add_rms_norm(float *residual, const uint16_t *delta,
                         const float *weight, const int32_t *rows, int num_rows,
                         int dim, float eps, uint16_t *out,
                         cudaStream_t stream) {
  if (num_rows > 0)
    launch_dependent(add_rms_norm_kernel, num_rows, norm_threads(dim), 0,
                     stream, residual, delta, weight, rows, dim, eps, out);
}

void launch_qk_norm_rope_store(const uint16_t *qkv, int n, QkvLayout layout,
                               const float *q_norm, const float *k_norm,
                               float eps, const float *rope_cos,
                               const float *rope_sin, const int32_t *positions,
                               const int32_t *slot_mapping, uint16_t *q_out,
                               uint16_t *k_cache, uint16_t *v_cache,
                               cudaStream_t stream) {
  if (n <= 0)
    return;
  const int heads = layout.heads + 2 * layout.kv_heads;
  // A few blocks per token: enough warps for small batches, one pass each.
  const int y = (heads + kHeadsPerBlock - 1) / kHeadsPerBlock;
  launch_dependent(qk_norm_rope_store_kernel, dim3(n, y), 32 * kHeadsPerBlock,
                   0, stream, qkv, layout, q_norm, k_norm, eps, rope_cos,
                   rope_sin, positions, slot_mapping, q_out, k_cache, v_cache);
}

void launch_silu_mul(const uint16_t *gate_up, int n, int dim, uint16_t *out,
                     cudaStream_t stream) {
  if (n <= 0)
    return;
  const int threads = 256;
  const int x = (dim + threads - 1) / threads;
  launch_dependent(silu_mul_kernel, dim3(x, n), threads, 0, stream, gate_up,
                   dim, out);
}

} // namespace engine::cuda
