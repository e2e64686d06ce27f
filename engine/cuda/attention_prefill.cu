// engine/cuda/attention_prefill.cu - causal attention for any number of
// query tokens per sequence (prefill, cached prefixes included) over the
// paged bf16 KV cache, on the tensor cores.
//
// Every key is read from the cache (the new tokens' keys were stored first),
// so a cached prefix costs nothing extra. The arithmetic is the CPU
// backend's (fp32 scores, an online softmax with a running maximum, fp32
// accumulation, one rounding to bf16 at the end), except that the
// probabilities are rounded to bf16 for the tensor cores, as FlashAttention
// does. A query head h reads KV head h / (heads / kv_heads) (GQA).
#include "engine/cuda/device_math.cuh"

#include <cfloat>

namespace engine::cuda {

namespace {
// FlashAttention-2 on the tensor cores: a block takes 64 query tokens of one
// sequence and one query head, 16 per warp; keys come in tiles of 64 staged
// in shared memory, S = Q·Kᵀ and O += P·V are bf16 mma.sync products with
// fp32 accumulators, and the softmax runs on the accumulators in registers
// with a running maximum (base 2, the scale folded in). P is rounded to bf16
// for its product, as FlashAttention does.
//
// How a tile is staged (PrefillStaging, attention_options.h says why):
// - transpose (shipped): loaded into registers, K stored as it is and V
//   transposed, so that both products read 32-bit pairs;
// - ldmatrix: V stored as it is too, its B fragments read by ldmatrix.trans;
// - async: as ldmatrix, copied by cp.async into one of two buffers while the
//   block works on the other.
// Each gives P·V the same bf16 values in the same registers: the same
// result, bit for bit.
constexpr int kPrefillWarps = 4;
constexpr int kPrefillRows = 16 * kPrefillWarps; // query tokens per block
constexpr int kPrefillKeys = 64;                 // keys per tile

__device__ __forceinline__ void mma_bf16(float c[4], const uint32_t a[4],
                                         uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Four 8×8 bf16 matrices from shared memory, transposed: lanes 8i..8i+7
/// give the row addresses of matrix i, whose (2t, g) and (2t+1, g) elements
/// reach lane 4g + t in r[i] (an mma B fragment of a row-major tile).
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4],
                                                  const uint16_t *row) {
  const uint32_t a = uint32_t(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
               "{%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  return uint32_t(to_bf(lo)) | uint32_t(to_bf(hi)) << 16;
}

/// 16 bytes from global to shared memory without passing through
/// registers; zeros when !valid (src is then not read).
__device__ __forceinline__ void copy_async_16(uint16_t *dst,
                                              const uint16_t *src, bool valid) {
  const uint32_t a = uint32_t(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(a),
               "l"(src), "r"(valid ? 16 : 0));
}

template <int HD> constexpr int kKStride = HD + 8; // bf16 elements; pads banks
/// Bytes of dynamic shared memory the async form takes: two buffers of a K
/// and a V tile, each stored as in the cache.
template <int HD>
constexpr int kAsyncSharedBytes = 2 * 2 * kPrefillKeys *kKStride<HD> * 2;

template <int HD, PrefillStaging STAGING>
__global__ void __launch_bounds__(kPrefillWarps * 32)
    prefill_attention_kernel(const uint16_t *q, int heads,
                             const int32_t *cu_seqlens_q, PagedKvView kv,
                             float scale, uint16_t *out) {
  constexpr bool kAsync = STAGING == PrefillStaging::async;
  constexpr bool kVAsStored = STAGING != PrefillStaging::transpose;
  constexpr int kKStride = engine::cuda::kKStride<HD>;
  constexpr int kVStride = kPrefillKeys + 8; // V transposed: [HD][keys]
  constexpr int kTile = kPrefillKeys * kKStride;
  // The async form's two buffers (each a K tile, then a V tile) are dynamic:
  // together more than the 48 KB a kernel may declare. The others use the
  // static arrays: K, and V as stored ([keys][HD], padded as K) or
  // transposed.
  extern __shared__ __align__(16) uint16_t buffers[];
  __shared__ __align__(16) uint16_t ks_static[kAsync ? 8 : kTile];
  __shared__ __align__(16) uint16_t vs_static[kAsync       ? 8
                                              : kVAsStored ? kTile
                                                           : HD * kVStride];
  wait_for_previous_kernel();

  const int s = blockIdx.z, h = blockIdx.y;
  const int q0 = cu_seqlens_q[s], nq = cu_seqlens_q[s + 1] - q0;
  const int tile0 = blockIdx.x * kPrefillRows;
  if (tile0 >= nq)
    return;
  const int kvh = h / (heads / kv.kv_heads);
  const int first_pos = kv.context_lens[s] - nq; // position of query 0
  const int key_end = first_pos + min(tile0 + kPrefillRows, nq);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4; // mma fragment coordinates
  // This thread's two query rows: r and r + 8 of the warp's 16.
  const int row_a = tile0 + warp * 16 + g, row_b = row_a + 8;
  const int pos_a = row_a < nq ? first_pos + row_a : -1; // −1: no keys
  const int pos_b = row_b < nq ? first_pos + row_b : -1;

  // Q as A fragments, straight from memory (one k-chunk of 16 dims each).
  uint32_t qa[HD / 16][4];
  auto q_pair = [&](int row, int d) -> uint32_t {
    if (row >= nq)
      return 0;
    return *reinterpret_cast<const uint32_t *>(
        q + (int64_t(q0 + row) * heads + h) * HD + d);
  };
#pragma unroll
  for (int kc = 0; kc < HD / 16; ++kc) {
    qa[kc][0] = q_pair(row_a, kc * 16 + 2 * t);
    qa[kc][1] = q_pair(row_b, kc * 16 + 2 * t);
    qa[kc][2] = q_pair(row_a, kc * 16 + 8 + 2 * t);
    qa[kc][3] = q_pair(row_b, kc * 16 + 8 + 2 * t);
  }

  const float scale_log2 = scale * 1.4426950408889634f;
  float m_a = -FLT_MAX, m_b = -FLT_MAX, l_a = 0.f, l_b = 0.f;
  float o[HD / 8][4];
#pragma unroll
  for (int j = 0; j < HD / 8; ++j)
    o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.f;

  // The async form's copies of the tile from key k0 into buffer `buf`: 8
  // dimensions (16 bytes) each, as the other forms load them.
  auto copy_tile = [&](int k0, int buf) {
    uint16_t *kb = buffers + buf * 2 * kTile, *vb = kb + kTile;
    for (int i = threadIdx.x; i < kPrefillKeys * (HD / 8); i += blockDim.x) {
      const int key = i / (HD / 8), d = (i % (HD / 8)) * 8;
      const bool live = k0 + key < key_end;
      const int64_t r = live ? (kv_row(kv, s, k0 + key) + kvh) * HD + d : 0;
      copy_async_16(kb + key * kKStride + d, kv.k + r, live);
      copy_async_16(vb + key * kKStride + d, kv.v + r, live);
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  if constexpr (kAsync)
    copy_tile(0, 0);

  for (int k0 = 0; k0 < key_end; k0 += kPrefillKeys) {
    __syncthreads(); // the buffer staged next is no longer read
    const uint16_t *ks = ks_static, *vs = vs_static;
    if constexpr (kAsync) {
      // The next tile's copies go out; this tile's (the group before) must
      // have landed: every thread waits for its own, the barrier below for
      // everyone's.
      const int buf = (k0 / kPrefillKeys) & 1;
      if (k0 + kPrefillKeys < key_end)
        copy_tile(k0 + kPrefillKeys, buf ^ 1);
      else
        asm volatile("cp.async.commit_group;\n" ::); // an empty group
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
      ks = buffers + buf * 2 * kTile;
      vs = ks + kTile;
    } else {
      // Stage K and V: 8 dimensions (16 bytes) per load; keys past the end
      // are zeros (a NaN there would survive a zero probability).
      for (int i = threadIdx.x; i < kPrefillKeys * (HD / 8); i += blockDim.x) {
        const int key = i / (HD / 8), d = (i % (HD / 8)) * 8;
        uint4 kk = make_uint4(0, 0, 0, 0), vv = kk;
        if (k0 + key < key_end) {
          const int64_t r = (kv_row(kv, s, k0 + key) + kvh) * HD + d;
          kk = *reinterpret_cast<const uint4 *>(kv.k + r);
          vv = *reinterpret_cast<const uint4 *>(kv.v + r);
        }
        *reinterpret_cast<uint4 *>(&ks_static[key * kKStride + d]) = kk;
        if (kVAsStored) {
          *reinterpret_cast<uint4 *>(&vs_static[key * kKStride + d]) = vv;
          continue;
        }
        const uint32_t w[4] = {vv.x, vv.y, vv.z, vv.w};
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          vs_static[(d + 2 * e) * kVStride + key] = uint16_t(w[e]);
          vs_static[(d + 2 * e + 1) * kVStride + key] = uint16_t(w[e] >> 16);
        }
      }
    }
    __syncthreads();

    // S = Q·Kᵀ: 8 column tiles of 8 keys.
    float sc[kPrefillKeys / 8][4];
#pragma unroll
    for (int j = 0; j < kPrefillKeys / 8; ++j) {
      sc[j][0] = sc[j][1] = sc[j][2] = sc[j][3] = 0.f;
      const uint16_t *krow = &ks[(j * 8 + g) * kKStride + 2 * t];
#pragma unroll
      for (int kc = 0; kc < HD / 16; ++kc)
        mma_bf16(sc[j], qa[kc],
                 *reinterpret_cast<const uint32_t *>(krow + kc * 16),
                 *reinterpret_cast<const uint32_t *>(krow + kc * 16 + 8));
    }
    // Mask (causal, and rows past the queries), scale, row maxima over the
    // quad of lanes that share a row.
    float mx_a = -FLT_MAX, mx_b = -FLT_MAX;
#pragma unroll
    for (int j = 0; j < kPrefillKeys / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = k0 + j * 8 + 2 * t + e;
        sc[j][e] = key <= pos_a ? sc[j][e] * scale_log2 : -FLT_MAX;
        sc[j][2 + e] = key <= pos_b ? sc[j][2 + e] * scale_log2 : -FLT_MAX;
        mx_a = fmaxf(mx_a, sc[j][e]);
        mx_b = fmaxf(mx_b, sc[j][2 + e]);
      }
#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {
      mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, off));
      mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, off));
    }
    const float new_a = fmaxf(m_a, mx_a), new_b = fmaxf(m_b, mx_b);
    // A row with no live key yet keeps everything at zero.
    const float alpha_a = new_a == -FLT_MAX ? 1.f : exp2f(m_a - new_a);
    const float alpha_b = new_b == -FLT_MAX ? 1.f : exp2f(m_b - new_b);
    m_a = new_a;
    m_b = new_b;
    float sum_a = 0.f, sum_b = 0.f;
#pragma unroll
    for (int j = 0; j < kPrefillKeys / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        sc[j][e] = sc[j][e] == -FLT_MAX ? 0.f : exp2f(sc[j][e] - m_a);
        sc[j][2 + e] =
            sc[j][2 + e] == -FLT_MAX ? 0.f : exp2f(sc[j][2 + e] - m_b);
        sum_a += sc[j][e];
        sum_b += sc[j][2 + e];
      }
    l_a = l_a * alpha_a + sum_a; // per thread; the quad is summed at the end
    l_b = l_b * alpha_b + sum_b;
#pragma unroll
    for (int j = 0; j < HD / 8; ++j) {
      o[j][0] *= alpha_a;
      o[j][1] *= alpha_a;
      o[j][2] *= alpha_b;
      o[j][3] *= alpha_b;
    }
    // O += P·V: P's accumulators are already laid out as A fragments.
#pragma unroll
    for (int kc = 0; kc < kPrefillKeys / 16; ++kc) {
      const uint32_t pa[4] = {pack_bf16(sc[2 * kc][0], sc[2 * kc][1]),
                              pack_bf16(sc[2 * kc][2], sc[2 * kc][3]),
                              pack_bf16(sc[2 * kc + 1][0], sc[2 * kc + 1][1]),
                              pack_bf16(sc[2 * kc + 1][2], sc[2 * kc + 1][3])};
      if constexpr (kVAsStored) {
        // Column tiles j and j + 1 at once: matrices 0 and 1 are keys
        // kc·16 + 0..7 and 8..15 of dimensions j·8.., 2 and 3 the same
        // keys of dimensions (j + 1)·8.. .
#pragma unroll
        for (int j = 0; j < HD / 8; j += 2) {
          uint32_t b[4];
          ldmatrix_x4_trans(
              b,
              &vs[(kc * 16 + (lane & 15)) * kKStride + (j + (lane >> 4)) * 8]);
          mma_bf16(o[j], pa, b[0], b[1]);
          mma_bf16(o[j + 1], pa, b[2], b[3]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < HD / 8; ++j) {
          const uint16_t *vrow = &vs[(j * 8 + g) * kVStride + kc * 16 + 2 * t];
          mma_bf16(o[j], pa, *reinterpret_cast<const uint32_t *>(vrow),
                   *reinterpret_cast<const uint32_t *>(vrow + 8));
        }
      }
    }
  }

#pragma unroll
  for (int off = 1; off < 4; off <<= 1) {
    l_a += __shfl_xor_sync(0xffffffffu, l_a, off);
    l_b += __shfl_xor_sync(0xffffffffu, l_b, off);
  }
  const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f;
  const float inv_b = l_b > 0.f ? 1.f / l_b : 0.f;
#pragma unroll
  for (int j = 0; j < HD / 8; ++j) {
    const int d = j * 8 + 2 * t;
    if (row_a < nq)
      *reinterpret_cast<uint32_t *>(
          out + (int64_t(q0 + row_a) * heads + h) * HD + d) =
          pack_bf16(o[j][0] * inv_a, o[j][1] * inv_a);
    if (row_b < nq)
      *reinterpret_cast<uint32_t *>(
          out + (int64_t(q0 + row_b) * heads + h) * HD + d) =
          pack_bf16(o[j][2] * inv_b, o[j][3] * inv_b);
  }
}

template <int HD>
void prefill(const uint16_t *q, int heads, const int32_t *cu, int num_seqs,
             int max_q_len, PagedKvView kv, float scale, uint16_t *out,
             cudaStream_t stream, PrefillStaging staging) {
  const int x = (max_q_len + kPrefillRows - 1) / kPrefillRows;
  const dim3 grid(x, heads, num_seqs);
  switch (staging) {
  case PrefillStaging::transpose:
    return launch_dependent(
        prefill_attention_kernel<HD, PrefillStaging::transpose>, grid,
        kPrefillWarps * 32, 0, stream, q, heads, cu, kv, scale, out);
  case PrefillStaging::ldmatrix:
    return launch_dependent(
        prefill_attention_kernel<HD, PrefillStaging::ldmatrix>, grid,
        kPrefillWarps * 32, 0, stream, q, heads, cu, kv, scale, out);
  case PrefillStaging::async: {
    auto *kernel = prefill_attention_kernel<HD, PrefillStaging::async>;
    // Past 48 KB of dynamic shared memory a kernel must ask, once. A
    // failure shows in the launch's error.
    static const cudaError_t asked = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
        kAsyncSharedBytes<HD>);
    (void)asked;
    return launch_dependent(kernel, grid, kPrefillWarps * 32,
                            kAsyncSharedBytes<HD>, stream, q, heads, cu, kv,
                            scale, out);
  }
  }
}

} // namespace

bool attention_supports_head_dim(int head_dim) {
  return head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 128;
}

bool attention_supports_group(int group) {
  return group == 1 || group == 2 || group == 4 || group == 8 || group == 16;
}

void launch_prefill_attention(const uint16_t *q, int heads,
                              const int32_t *cu_seqlens_q, int num_seqs,
                              int max_q_len, PagedKvView kv, float scale,
                              uint16_t *out, cudaStream_t stream,
                              PrefillStaging staging) {
  if (num_seqs <= 0 || max_q_len <= 0)
    return;
  switch (kv.head_dim) {
  case 16:
    return prefill<16>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                       out, stream, staging);
  case 32:
    return prefill<32>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                       out, stream, staging);
  case 64:
    return prefill<64>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                       out, stream, staging);
  case 128:
    return prefill<128>(q, heads, cu_seqlens_q, num_seqs, max_q_len, kv, scale,
                        out, stream, staging);
  }
}

} // namespace engine::cuda
