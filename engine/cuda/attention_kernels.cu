// engine/cuda/attention_kernels.cu - causal attention over the paged bf16 KV
// cache: a prefill kernel for any number of query tokens per sequence, and a
// decode kernel split along the sequence with a combine pass.
//
// Both read every key from the cache (the new tokens' keys were stored
// first), so a cached prefix costs nothing extra and the arithmetic is the
// CPU backend's: fp32 scores with the scale folded into q, an online softmax
// with a running maximum, fp32 accumulation, one rounding to bf16 at the end.
// A query head h reads KV head h / (heads / kv_heads) (GQA): one block serves
// every query head of its KV head, so each key is loaded once for the group.
#include "engine/cuda/kernels.h"

#include <cuda_bf16.h>

#include <cfloat>

namespace engine::cuda {

namespace {
__device__ __forceinline__ float bf(uint16_t h) {
  return __uint_as_float(uint32_t(h) << 16);
}
__device__ __forceinline__ uint16_t to_bf(float f) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Where position pos of sequence s lives in the cache (slot · kv_heads).
__device__ __forceinline__ int64_t kv_row(const PagedKvView &kv, int s,
                                          int pos) {
  const int block =
      kv.block_tables[int64_t(s) * kv.table_width + pos / kv.block_size];
  return (int64_t(block) * kv.block_size + pos % kv.block_size) * kv.kv_heads;
}

// ---- prefill ---------------------------------------------------------------
// A block takes 32 query rows (row = token · group + head within the group)
// of one sequence and one KV head, 8 per warp; keys come in chunks of 32,
// one per lane for the scores, and each lane accumulates its own dimensions.
constexpr int kRowsPerWarp = 8;
constexpr int kWarps = 4;
constexpr int kRows = kRowsPerWarp * kWarps;
constexpr int kKeys = 32;

template <int HD>
__global__ void __launch_bounds__(kWarps * 32)
    prefill_attention_kernel(const uint16_t *q, int heads,
                             const int32_t *cu_seqlens_q, PagedKvView kv,
                             float scale, uint16_t *out) {
  constexpr int kPairs = HD / 2;
  constexpr int kPairsPerLane = (kPairs + 31) / 32;
  __shared__ float qs[kRows][HD];
  __shared__ __nv_bfloat162 ks[kKeys][kPairs + 1]; // +1: lanes hit all banks
  __shared__ __nv_bfloat162 vs[kKeys][kPairs];
  __shared__ float ps[kWarps][kRowsPerWarp][kKeys];

  const int s = blockIdx.z, kvh = blockIdx.y;
  const int q0 = cu_seqlens_q[s], nq = cu_seqlens_q[s + 1] - q0;
  const int group = heads / kv.kv_heads;
  const int rows = nq * group;
  const int row0 = blockIdx.x * kRows;
  if (row0 >= rows)
    return;
  const int first_pos = kv.context_lens[s] - nq; // position of query 0
  const int last_row = min(row0 + kRows, rows) - 1;
  const int key_end = first_pos + last_row / group + 1;

  for (int i = threadIdx.x; i < kRows * HD; i += blockDim.x) {
    const int r = i / HD, d = i % HD, row = row0 + r;
    float v = 0.f;
    if (row < rows) {
      const int h = kvh * group + row % group;
      v = bf(q[(int64_t(q0 + row / group) * heads + h) * HD + d]);
    }
    qs[r][d] = v * scale;
  }

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float m[kRowsPerWarp], l[kRowsPerWarp];
  float acc[kRowsPerWarp][2 * kPairsPerLane];
  int qpos[kRowsPerWarp];
#pragma unroll
  for (int j = 0; j < kRowsPerWarp; ++j) {
    const int row = row0 + warp * kRowsPerWarp + j;
    qpos[j] = row < rows ? first_pos + row / group : -1; // −1: no keys
    m[j] = -FLT_MAX;
    l[j] = 0.f;
#pragma unroll
    for (int a = 0; a < 2 * kPairsPerLane; ++a)
      acc[j][a] = 0.f;
  }

  for (int k0 = 0; k0 < key_end; k0 += kKeys) {
    __syncthreads(); // the previous chunk is no longer read
    for (int i = threadIdx.x; i < kKeys * kPairs; i += blockDim.x) {
      const int j = i / kPairs, p = i % kPairs, pos = k0 + j;
      __nv_bfloat162 kk = __floats2bfloat162_rn(0.f, 0.f), vv = kk;
      if (pos < key_end) {
        const int64_t r = (kv_row(kv, s, pos) + kvh) * HD;
        kk = reinterpret_cast<const __nv_bfloat162 *>(kv.k + r)[p];
        vv = reinterpret_cast<const __nv_bfloat162 *>(kv.v + r)[p];
      }
      ks[j][p] = kk;
      vs[j][p] = vv;
    }
    __syncthreads();

    float sc[kRowsPerWarp];
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j)
      sc[j] = 0.f;
#pragma unroll 4
    for (int p = 0; p < kPairs; ++p) {
      const float2 kf = __bfloat1622float2(ks[lane][p]);
#pragma unroll
      for (int j = 0; j < kRowsPerWarp; ++j) {
        const float2 qf = *reinterpret_cast<const float2 *>(
            &qs[warp * kRowsPerWarp + j][2 * p]);
        sc[j] += qf.x * kf.x + qf.y * kf.y;
      }
    }
    const int key = k0 + lane;
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) {
      const bool live = key <= qpos[j];
      const float mx = warp_max(live ? sc[j] : -FLT_MAX);
      const float m_new = fmaxf(m[j], mx);
      // No live key yet: nothing to add, nothing to rescale.
      const float p = live ? __expf(sc[j] - m_new) : 0.f;
      const float alpha = m[j] == -FLT_MAX ? 0.f : __expf(m[j] - m_new);
      l[j] = l[j] * alpha + warp_sum(p);
      m[j] = m_new;
#pragma unroll
      for (int a = 0; a < 2 * kPairsPerLane; ++a)
        acc[j][a] *= alpha;
      ps[warp][j][lane] = p;
    }
    __syncwarp();
    for (int key_i = 0; key_i < kKeys; ++key_i) {
#pragma unroll
      for (int pp = 0; pp < kPairsPerLane; ++pp) {
        const int p = lane + 32 * pp;
        if (p < kPairs) {
          const float2 vf = __bfloat1622float2(vs[key_i][p]);
#pragma unroll
          for (int j = 0; j < kRowsPerWarp; ++j) {
            const float w = ps[warp][j][key_i];
            acc[j][2 * pp] += w * vf.x;
            acc[j][2 * pp + 1] += w * vf.y;
          }
        }
      }
    }
    __syncwarp();
  }

#pragma unroll
  for (int j = 0; j < kRowsPerWarp; ++j) {
    const int row = row0 + warp * kRowsPerWarp + j;
    if (row >= rows)
      continue;
    const int h = kvh * group + row % group;
    uint16_t *o = out + (int64_t(q0 + row / group) * heads + h) * HD;
    const float inv = l[j] > 0.f ? 1.f / l[j] : 0.f;
#pragma unroll
    for (int pp = 0; pp < kPairsPerLane; ++pp) {
      const int p = lane + 32 * pp;
      if (p < kPairs) {
        o[2 * p] = to_bf(acc[j][2 * pp] * inv);
        o[2 * p + 1] = to_bf(acc[j][2 * pp + 1] * inv);
      }
    }
  }
}

// ---- decode ----------------------------------------------------------------
// Block (partition, KV head, sequence): the group's G query heads against up
// to kDecodePartition keys, in one pass (flash-decoding). Decode is bound by
// reading the cache, so each warp takes every fourth key with a lane per four
// dimensions (one coalesced 8-byte load per lane, key and K or V), four
// keys' K and V loads issued before any is used, and keeps its own running
// max, sum and output; the block then merges its warps. A sequence of one
// partition is written out at once; for longer ones each block leaves its
// partial output, max and sum, and the last block of the sequence to finish
// (a ticket per sequence and KV head) merges them all: no second kernel.
constexpr int kDecodeThreads = 128;
constexpr int kDecodeWarps = kDecodeThreads / 32;
constexpr int kDecodeUnroll = 4;

template <int HD, int G>
__global__ void __launch_bounds__(kDecodeThreads)
    decode_attention_kernel(const uint16_t *q, int heads, PagedKvView kv,
                            float scale, int max_parts, float *ws_acc,
                            float *ws_max, float *ws_sum, int *tickets,
                            uint16_t *out) {
  __shared__ float w_max[kDecodeWarps][G], w_sum[kDecodeWarps][G];
  __shared__ float w_acc[kDecodeWarps][G][HD];
  __shared__ bool last_block;

  const int part = blockIdx.x, kvh = blockIdx.y, s = blockIdx.z;
  const int context = kv.context_lens[s];
  const int start = part * kDecodePartition;
  const int parts = (context + kDecodePartition - 1) / kDecodePartition;
  const int64_t head0 = int64_t(s) * heads + kvh * G;
  if (context == 0 && part == 0) // graph padding: a zero row
    for (int i = threadIdx.x; i < G * HD; i += blockDim.x)
      out[head0 * HD + i] = 0;
  if (part >= parts)
    return;
  const int n = min(context - start, kDecodePartition);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int d0 = 4 * lane; // this lane's dimensions: [d0, d0 + 4)
  const bool active = d0 < HD;

  float qr[G][4];
#pragma unroll
  for (int g = 0; g < G; ++g)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      qr[g][e] = active ? bf(q[(head0 + g) * HD + d0 + e]) * scale : 0.f;

  float m[G], l[G], acc[G][4];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    m[g] = -FLT_MAX;
    l[g] = 0.f;
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc[g][e] = 0.f;
  }
  auto unpack = [](uint2 raw, float f[4]) {
    f[0] = __uint_as_float(raw.x << 16);
    f[1] = __uint_as_float(raw.x & 0xffff0000u);
    f[2] = __uint_as_float(raw.y << 16);
    f[3] = __uint_as_float(raw.y & 0xffff0000u);
  };
  // The next group's K and V are loaded while this group is computed.
  auto fetch = [&](int j0, uint2 kr[kDecodeUnroll], uint2 vr[kDecodeUnroll]) {
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      const int j = j0 + u * kDecodeWarps;
      kr[u] = vr[u] = make_uint2(0, 0);
      if (j < n && active) {
        const int64_t r = (kv_row(kv, s, start + j) + kvh) * HD + d0;
        kr[u] = *reinterpret_cast<const uint2 *>(kv.k + r);
        vr[u] = *reinterpret_cast<const uint2 *>(kv.v + r);
      }
    }
  };
  constexpr int kStep = kDecodeUnroll * kDecodeWarps;
  uint2 kr[kDecodeUnroll], vr[kDecodeUnroll];
  fetch(warp, kr, vr);
  for (int j0 = warp; j0 < n; j0 += kStep) {
    uint2 next_k[kDecodeUnroll], next_v[kDecodeUnroll];
    fetch(j0 + kStep, next_k, next_v); // nothing past n is read
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float sc[kDecodeUnroll], mx = -FLT_MAX;
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u) {
        float f[4];
        unpack(kr[u], f);
        float dot = 0.f;
#pragma unroll
        for (int e = 0; e < 4; ++e)
          dot += qr[g][e] * f[e];
        dot = warp_sum(dot);
        sc[u] = j0 + u * kDecodeWarps < n ? dot : -FLT_MAX;
        mx = fmaxf(mx, sc[u]);
      }
      const float m_new = fmaxf(m[g], mx); // finite: key j0 exists
      const float alpha = __expf(m[g] - m_new);
      l[g] *= alpha;
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[g][e] *= alpha;
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u) {
        const float p = j0 + u * kDecodeWarps < n ? __expf(sc[u] - m_new) : 0.f;
        l[g] += p;
        float f[4];
        unpack(vr[u], f);
#pragma unroll
        for (int e = 0; e < 4; ++e)
          acc[g][e] += p * f[e];
      }
      m[g] = m_new;
    }
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      kr[u] = next_k[u];
      vr[u] = next_v[u];
    }
  }
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (lane == 0) {
      w_max[warp][g] = m[g];
      w_sum[warp][g] = l[g];
    }
    if (active)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        w_acc[warp][g][d0 + e] = acc[g][e];
  }
  __syncthreads();

  // The block's result per head: its warps merged in a fixed order (a warp
  // that saw no key has max −FLT_MAX and weighs nothing).
  const bool single = parts == 1;
  for (int i = threadIdx.x; i < G * HD; i += blockDim.x) {
    const int g = i / HD, d = i % HD;
    float mb = -FLT_MAX;
    for (int w = 0; w < kDecodeWarps; ++w)
      mb = fmaxf(mb, w_max[w][g]);
    float lb = 0.f, ob = 0.f;
    for (int w = 0; w < kDecodeWarps; ++w) {
      const float f = __expf(w_max[w][g] - mb);
      lb += f * w_sum[w][g];
      ob += f * w_acc[w][g][d];
    }
    const int64_t row = head0 + g;
    if (single) {
      out[row * HD + d] = to_bf(ob / lb);
    } else {
      ws_acc[(row * max_parts + part) * HD + d] = ob;
      if (d == 0) {
        ws_max[row * max_parts + part] = mb;
        ws_sum[row * max_parts + part] = lb;
      }
    }
  }
  if (single)
    return;

  // Several partitions: the last block of this sequence and KV head to get
  // here merges every partition's result.
  __threadfence(); // this block's partials are visible before its ticket
  __syncthreads();
  int *ticket = tickets + int64_t(s) * kv.kv_heads + kvh;
  if (threadIdx.x == 0)
    last_block = atomicAdd(ticket, 1) == parts - 1;
  __syncthreads();
  if (!last_block)
    return;
  __threadfence();
  for (int i = threadIdx.x; i < G * HD; i += blockDim.x) {
    const int g = i / HD, d = i % HD;
    const int64_t row = head0 + g;
    const volatile float *mx = ws_max + row * max_parts;
    const volatile float *sm = ws_sum + row * max_parts;
    const volatile float *ac = ws_acc + row * max_parts * HD + d;
    float mo = -FLT_MAX;
    for (int p = 0; p < parts; ++p)
      mo = fmaxf(mo, mx[p]);
    float lo = 0.f, oo = 0.f;
    for (int p = 0; p < parts; ++p) {
      const float f = __expf(mx[p] - mo);
      lo += f * sm[p];
      oo += f * ac[int64_t(p) * HD];
    }
    out[row * HD + d] = to_bf(oo / lo);
  }
  if (threadIdx.x == 0)
    *ticket = 0; // ready for the next step
}

int parts_for(int max_context) {
  return (max_context + kDecodePartition - 1) / kDecodePartition;
}

template <int HD>
void prefill(const uint16_t *q, int heads, const int32_t *cu, int num_seqs,
             int max_q_len, PagedKvView kv, float scale, uint16_t *out,
             cudaStream_t stream) {
  const int group = heads / kv.kv_heads;
  const int x = (max_q_len * group + kRows - 1) / kRows;
  prefill_attention_kernel<HD>
      <<<dim3(x, kv.kv_heads, num_seqs), kWarps * 32, 0, stream>>>(
          q, heads, cu, kv, scale, out);
}

template <int HD, int G>
void decode_group(const uint16_t *q, int heads, int num_seqs, int parts,
                  PagedKvView kv, float scale, float *acc, float *mx,
                  float *sum, int *tickets, uint16_t *out,
                  cudaStream_t stream) {
  decode_attention_kernel<HD, G>
      <<<dim3(parts, kv.kv_heads, num_seqs), kDecodeThreads, 0, stream>>>(
          q, heads, kv, scale, parts, acc, mx, sum, tickets, out);
}

template <int HD>
void decode(const uint16_t *q, int heads, int num_seqs, int max_context,
            PagedKvView kv, float scale, float *ws, int *tickets, uint16_t *out,
            cudaStream_t stream) {
  const int parts = parts_for(max_context);
  const int64_t rows = int64_t(num_seqs) * heads * parts;
  float *acc = ws, *mx = acc + rows * HD, *sum = mx + rows;
  switch (heads / kv.kv_heads) {
  case 1:
    decode_group<HD, 1>(q, heads, num_seqs, parts, kv, scale, acc, mx, sum,
                        tickets, out, stream);
    break;
  case 2:
    decode_group<HD, 2>(q, heads, num_seqs, parts, kv, scale, acc, mx, sum,
                        tickets, out, stream);
    break;
  case 4:
    decode_group<HD, 4>(q, heads, num_seqs, parts, kv, scale, acc, mx, sum,
                        tickets, out, stream);
    break;
  case 8:
    decode_group<HD, 8>(q, heads, num_seqs, parts, kv, scale, acc, mx, sum,
                        tickets, out, stream);
    break;
  case 16:
    decode_group<HD, 16>(q, heads, num_seqs, parts, kv, scale, acc, mx, sum,
                         tickets, out, stream);
    break;
  }
}
} // namespace

bool attention_supports_head_dim(int head_dim) {
  return head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 128;
}

bool attention_supports_group(int group) {
  return group == 1 || group == 2 || group == 4 || group == 8 || group == 16;
}

int64_t decode_attention_workspace(int num_seqs, int heads, int head_dim,
                                   int max_context) {
  return int64_t(num_seqs) * heads * parts_for(max_context) * (head_dim + 2);
}

void launch_prefill_attention(const uint16_t *q, int heads,
                              const int32_t *cu_seqlens_q, int num_seqs,
                              int max_q_len, PagedKvView kv, float scale,
                              uint16_t *out, cudaStream_t stream) {
  if (num_seqs <= 0 || max_q_len <= 0)
    return;
  switch (kv.head_dim) {
  case 16:
    return prefill<16>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                       out, stream);
  case 32:
    return prefill<32>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                       out, stream);
  case 64:
    return prefill<64>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                       out, stream);
  case 128:
    return prefill<128>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                        out, stream);
  }
}

void launch_decode_attention(const uint16_t *q, int heads, int num_seqs,
                             int max_context, PagedKvView kv, float scale,
                             float *workspace, int *tickets, uint16_t *out,
                             cudaStream_t stream) {
  if (num_seqs <= 0 || max_context <= 0)
    return;
  switch (kv.head_dim) {
  case 16:
    return decode<16>(q, heads, num_seqs, max_context, kv, scale, workspace,
                      tickets, out, stream);
  case 32:
    return decode<32>(q, heads, num_seqs, max_context, kv, scale, workspace,
                      tickets, out, stream);
  case 64:
    return decode<64>(q, heads, num_seqs, max_context, kv, scale, workspace,
                      tickets, out, stream);
  case 128:
    return decode<128>(q, heads, num_seqs, max_context, kv, scale, workspace,
                       tickets, out, stream);
  }
}

} // namespace engine::cuda
