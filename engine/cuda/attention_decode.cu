// engine/cuda/attention_decode.cu - attention for one new token per
// sequence over the paged bf16 KV cache, split along the sequence in
// partitions of kDecodePartition keys: one pass with the merge folded in for
// small batches, two passes and a merge kernel for large ones.
//
// As the CPU backend: fp32 scores, a softmax with a running maximum, fp32
// accumulation, one rounding to bf16 at the end. A block serves every query
// head of its KV head (GQA), so each key is loaded once for the group.
#include "engine/cuda/device_math.cuh"
#include "engine/cuda/qk_norm_rope.cuh"

#include <cfloat>
#include <type_traits>

namespace engine::cuda {

namespace {
// Block (partition, KV head, sequence): the group's G query heads against up
// to kDecodePartition keys, in one pass (flash-decoding). Decode is bound by
// reading the cache, so each warp takes every fourth key with a lane per four
// dimensions (one coalesced 8-byte load per lane, key and K or V), four
// keys' K and V loads issued before any is used, and keeps its own running
// max, sum and output; the block then merges its warps. A sequence of one
// partition is written out at once; for longer ones each block leaves its
// partial output, max and sum, and the last block of the sequence to finish
// (a ticket per sequence and KV head) merges them all: no second kernel.
//
// FOLD: the block first does its part of the step's q/k norms, RoPE and KV
// store (QkNormRope): each block its group's query heads, into shared
// memory, and the block of the last partition, the only one to read the new
// token's key, also its KV head's k and v, into the cache, before its
// barrier.
constexpr int kDecodeThreads = 128;
constexpr int kDecodeWarps = kDecodeThreads / 32;
constexpr int kDecodeUnroll = 4;

template <int HD, int G, bool FOLD>
__global__ void __launch_bounds__(kDecodeThreads)
    decode_attention_kernel(const uint16_t *q, int heads, PagedKvView kv,
                            float scale, int max_parts, float *ws_acc,
                            float *ws_max, float *ws_sum, int *tickets,
                            uint16_t *out, QkNormRope fold) {
  __shared__ float w_max[kDecodeWarps][G], w_sum[kDecodeWarps][G];
  __shared__ float w_acc[kDecodeWarps][G][HD];
  __shared__ bool last_block;
  // FOLD: the group's normed and rotated query heads, and each warp's
  // scratch for norm_rope_head.
  __shared__ uint16_t q_folded[FOLD ? G : 1][HD];
  __shared__ float head_scratch[FOLD ? kDecodeWarps : 1][HD];
  wait_for_previous_kernel();

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
  if constexpr (FOLD) {
    const QkvLayout &L = fold.layout;
    const int64_t row = int64_t(s) * (L.heads + 2 * L.kv_heads) * HD;
    const int pos = fold.positions[s];
    const float *rope_c = fold.rope_cos + int64_t(pos) * (HD / 2);
    const float *rope_s = fold.rope_sin + int64_t(pos) * (HD / 2);
    for (int g = warp; g < G; g += kDecodeWarps)
      norm_rope_head(fold.qkv + row + int64_t(kvh * G + g) * HD, fold.q_norm,
                     HD, fold.eps, rope_c, rope_s, head_scratch[warp],
                     q_folded[g]);
    // The new token is the sequence's last position: in the last partition.
    // The last warp has the least query work when G < 4.
    const int64_t slot = fold.slot_mapping[s];
    if (part == parts - 1 && slot >= 0 && warp == kDecodeWarps - 1) {
      const int64_t at = (slot * L.kv_heads + kvh) * HD;
      norm_rope_head(fold.qkv + row + int64_t(L.heads + kvh) * HD, fold.k_norm,
                     HD, fold.eps, rope_c, rope_s, head_scratch[warp],
                     fold.k_cache + at);
      copy_head(fold.qkv + row + int64_t(L.heads + L.kv_heads + kvh) * HD, HD,
                fold.v_cache + at);
    }
    __syncthreads(); // the query heads and the new key are in place
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        qr[g][e] = active ? bf(q_folded[g][d0 + e]) * scale : 0.f;
  } else {
    load_q_slice<G, HD>(q, head0, d0, active, scale, qr);
  }

  float m[G], l[G], acc[G][4];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    m[g] = -FLT_MAX;
    l[g] = 0.f;
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc[g][e] = 0.f;
  }
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
        unpack_bf16x4(kr[u], f);
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
        unpack_bf16x4(vr[u], f);
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

// The same in two passes, for large batches: scores for the partition's
// keys into shared memory, then softmax and P·V from there, with a separate
// kernel merging partitions. With hundreds of sequences it is the faster of
// the two (H200, 256 sequences of about 600 tokens: 132 µs a layer, at 93%
// of the memory's bandwidth, against 163 µs for the one-pass kernel, which
// spends its time on per-key rescaling); with a few, the one-pass kernel is
// (3.8 µs against 6.2 µs at batch 1).
template <int HD, int G>
__global__ void __launch_bounds__(kDecodeThreads)
    decode_two_pass_kernel(const uint16_t *q, int heads, PagedKvView kv,
                           float scale, int max_parts, float *ws_acc,
                           float *ws_max, float *ws_sum, uint16_t *out) {
  __shared__ float red[G][HD]; // the cross-warp sum of P·V
  __shared__ float sc[G][kDecodePartition];
  __shared__ int64_t rows[kDecodePartition];
  wait_for_previous_kernel();

  const int part = blockIdx.x, kvh = blockIdx.y, s = blockIdx.z;
  const int context = kv.context_lens[s];
  const int start = part * kDecodePartition;
  if (start >= context)
    return;
  const int n = min(context - start, kDecodePartition);
  const bool single = context <= kDecodePartition;
  const int64_t head0 = int64_t(s) * heads + kvh * G;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Each lane owns dimensions [4·lane, 4·lane + 4) of q, of every key it
  // reads and of the output.
  const int d0 = 4 * lane;
  const bool active = d0 < HD;

  float qr[G][4];
  load_q_slice<G, HD>(q, head0, d0, active, scale, qr);

  // Scores: warp w takes keys w, w + 4, ...; a key's dot product is summed
  // across the lanes.
  auto load = [&](const uint16_t *base, int64_t row) {
    return active ? *reinterpret_cast<const uint2 *>(base + row + d0)
                  : make_uint2(0, 0);
  };
  auto score_key = [&](uint2 raw, int j, int64_t row) {
    float f[4];
    unpack_bf16x4(raw, f);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float dot = 0.f;
#pragma unroll
      for (int e = 0; e < 4; ++e)
        dot += qr[g][e] * f[e];
      dot = warp_sum(dot);
      if (lane == 0)
        sc[g][j] = dot;
    }
    if (lane == 0)
      rows[j] = row;
  };
  {
    int j = warp;
    for (; j + (kDecodeUnroll - 1) * kDecodeWarps < n;
         j += kDecodeUnroll * kDecodeWarps) {
      int64_t row[kDecodeUnroll];
      uint2 raw[kDecodeUnroll];
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u)
        row[u] = (kv_row(kv, s, start + j + u * kDecodeWarps) + kvh) * HD;
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u)
        raw[u] = load(kv.k, row[u]);
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u)
        score_key(raw[u], j + u * kDecodeWarps, row[u]);
    }
    for (; j < n; j += kDecodeWarps) {
      const int64_t row = (kv_row(kv, s, start + j) + kvh) * HD;
      score_key(load(kv.k, row), j, row);
    }
  }
  __syncthreads();

  __shared__ float sums[G];
  for (int g = warp; g < G; g += kDecodeWarps) {
    float mx = -FLT_MAX;
    for (int j = lane; j < n; j += 32)
      mx = fmaxf(mx, sc[g][j]);
    mx = warp_max(mx);
    float sum = 0.f;
    for (int j = lane; j < n; j += 32) {
      const float p = __expf(sc[g][j] - mx);
      sc[g][j] = p;
      sum += p;
    }
    sum = warp_sum(sum);
    if (lane == 0) {
      sums[g] = sum;
      if (!single) {
        ws_max[(head0 + g) * max_parts + part] = mx;
        ws_sum[(head0 + g) * max_parts + part] = sum;
      }
    }
  }
  __syncthreads();

  // P·V: warp w again takes every fourth key.
  float acc[G][4];
#pragma unroll
  for (int g = 0; g < G; ++g)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc[g][e] = 0.f;
  auto add_key = [&](uint2 raw, int j) {
    float f[4];
    unpack_bf16x4(raw, f);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const float p = sc[g][j];
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[g][e] += p * f[e];
    }
  };
  int j = warp;
  for (; j + (kDecodeUnroll - 1) * kDecodeWarps < n;
       j += kDecodeUnroll * kDecodeWarps) {
    uint2 raw[kDecodeUnroll];
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u)
      raw[u] = load(kv.v, rows[j + u * kDecodeWarps]);
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u)
      add_key(raw[u], j + u * kDecodeWarps);
  }
  for (; j < n; j += kDecodeWarps)
    add_key(load(kv.v, rows[j]), j);
  // The warps' partial outputs summed one warp at a time: a fixed order.
  for (int w = 0; w < kDecodeWarps; ++w) {
    if (warp == w && active)
#pragma unroll
      for (int g = 0; g < G; ++g)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          red[g][d0 + e] = (w ? red[g][d0 + e] : 0.f) + acc[g][e];
    __syncthreads();
  }
  for (int i = threadIdx.x; i < G * HD; i += blockDim.x) {
    const int g = i / HD, d = i % HD;
    if (single)
      out[(head0 + g) * HD + d] = to_bf(red[g][d] / sums[g]);
    else
      ws_acc[((head0 + g) * max_parts + part) * HD + d] = red[g][d];
  }
}

// Sequences of several partitions: their partial outputs rescaled to the
// overall maximum and summed. One partition: already written; none (graph
// padding): a zero row.
template <int HD>
__global__ void decode_combine_kernel(int heads, const int32_t *context_lens,
                                      int max_parts, const float *ws_acc,
                                      const float *ws_max, const float *ws_sum,
                                      uint16_t *out) {
  wait_for_previous_kernel();
  const int s = blockIdx.x, h = blockIdx.y;
  const int context = context_lens[s];
  const int parts = (context + kDecodePartition - 1) / kDecodePartition;
  if (parts == 1)
    return;
  const int64_t row = int64_t(s) * heads + h;
  const float *mx = ws_max + row * max_parts;
  const float *sm = ws_sum + row * max_parts;
  float m = -FLT_MAX;
  for (int p = 0; p < parts; ++p)
    m = fmaxf(m, mx[p]);
  float denom = 0.f;
  for (int p = 0; p < parts; ++p)
    denom += __expf(mx[p] - m) * sm[p];
  const float inv = denom > 0.f ? 1.f / denom : 0.f;
  for (int d = threadIdx.x; d < HD; d += blockDim.x) {
    float o = 0.f;
    for (int p = 0; p < parts; ++p)
      o += __expf(mx[p] - m) * ws_acc[(row * max_parts + p) * HD + d];
    out[row * HD + d] = to_bf(o * inv);
  }
}

int parts_for(int max_context) {
  return (max_context + kDecodePartition - 1) / kDecodePartition;
}

// From this many sequences on, the two-pass kernel (and no fold: kernels.h).
constexpr int kTwoPassMinSeqs = kDecodeFoldMaxSeqs;

template <int HD, int G>
void decode_group(const uint16_t *q, int heads, int num_seqs, int parts,
                  PagedKvView kv, float scale, float *acc, float *mx,
                  float *sum, int *tickets, uint16_t *out, cudaStream_t stream,
                  const QkNormRope *fold) {
  const dim3 grid(parts, kv.kv_heads, num_seqs);
  if (num_seqs < kTwoPassMinSeqs) {
    if (fold)
      launch_dependent(decode_attention_kernel<HD, G, true>, grid,
                       kDecodeThreads, 0, stream, q, heads, kv, scale, parts,
                       acc, mx, sum, tickets, out, *fold);
    else
      launch_dependent(decode_attention_kernel<HD, G, false>, grid,
                       kDecodeThreads, 0, stream, q, heads, kv, scale, parts,
                       acc, mx, sum, tickets, out, QkNormRope{});
    return;
  }
  if (fold) { // the two-pass kernel reads q from memory
    launch_qk_norm_rope_store(
        fold->qkv, num_seqs, fold->layout, fold->q_norm, fold->k_norm,
        fold->eps, fold->rope_cos, fold->rope_sin, fold->positions,
        fold->slot_mapping, fold->q_out, fold->k_cache, fold->v_cache, stream);
    q = fold->q_out;
  }
  launch_dependent(decode_two_pass_kernel<HD, G>, grid, kDecodeThreads, 0,
                   stream, q, heads, kv, scale, parts, acc, mx, sum, out);
  constexpr int kCombineThreads = HD < 32 ? 32 : HD;
  launch_dependent(decode_combine_kernel<HD>, dim3(num_seqs, heads),
                   kCombineThreads, 0, stream, heads, kv.context_lens, parts,
                   acc, mx, sum, out);
}

template <int HD>
void decode(const uint16_t *q, int heads, int num_seqs, int max_context,
            PagedKvView kv, float scale, float *ws, int *tickets, uint16_t *out,
            cudaStream_t stream, const QkNormRope *fold) {
  const int parts = parts_for(max_context);
  const int64_t rows = int64_t(num_seqs) * heads * parts;
  float *acc = ws, *mx = acc + rows * HD, *sum = mx + rows;
  // The GQA group is a template parameter: the per-head loops unroll.
  auto launch = [&](auto group) {
    decode_group<HD, decltype(group)::value>(q, heads, num_seqs, parts, kv,
                                             scale, acc, mx, sum, tickets, out,
                                             stream, fold);
  };
  switch (heads / kv.kv_heads) {
  case 1:
    return launch(std::integral_constant<int, 1>{});
  case 2:
    return launch(std::integral_constant<int, 2>{});
  case 4:
    return launch(std::integral_constant<int, 4>{});
  case 8:
    return launch(std::integral_constant<int, 8>{});
  case 16:
    return launch(std::integral_constant<int, 16>{});
  }
}
} // namespace

int64_t decode_attention_workspace(int num_seqs, int heads, int head_dim,
                                   int max_context) {
  return int64_t(num_seqs) * heads * parts_for(max_context) * (head_dim + 2);
}

void launch_decode_attention(const uint16_t *q, int heads, int num_seqs,
                             int max_context, PagedKvView kv, float scale,
                             float *workspace, int *tickets, uint16_t *out,
                             cudaStream_t stream, const QkNormRope *fold) {
  if (num_seqs <= 0 || max_context <= 0)
    return;
  switch (kv.head_dim) {
  case 16:
    return decode<16>(q, heads, num_seqs, max_context, kv, scale, workspace,
                      tickets, out, stream, fold);
  case 32:
    return decode<32>(q, heads, num_seqs, max_context, kv, scale, workspace,
                      tickets, out, stream, fold);
  case 64:
    return decode<64>(q, heads, num_seqs, max_context, kv, scale, workspace,
                      tickets, out, stream, fold);
  case 128:
    return decode<128>(q, heads, num_seqs, max_context, kv, scale, workspace,
                       tickets, out, stream, fold);
  }
}

} // namespace engine::cuda
