// engine/cuda/device_math.cuh - small device helpers the kernels share:
// bf16 bits to and from fp32, warp reductions, and where a position of a
// sequence lives in the paged KV cache. Included by .cu files only.
#pragma once

#include "engine/cuda/dependent_launch.cuh"
#include "engine/cuda/kernels.h"

#include <cuda_bf16.h>

#include <cstdint>

namespace engine::cuda {

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

/// Four bf16 values (one 8-byte load) as fp32.
__device__ __forceinline__ void unpack_bf16x4(uint2 raw, float f[4]) {
  f[0] = __uint_as_float(raw.x << 16);
  f[1] = __uint_as_float(raw.x & 0xffff0000u);
  f[2] = __uint_as_float(raw.y << 16);
  f[3] = __uint_as_float(raw.y & 0xffff0000u);
}

/// Dimensions [d0, d0 + 4) of G consecutive query heads from head0 (rows of
/// HD bf16 values), times scale; zeros for a lane past the head (inactive).
template <int G, int HD>
__device__ __forceinline__ void load_q_slice(const uint16_t *q, int64_t head0,
                                             int d0, bool active, float scale,
                                             float qr[G][4]) {
#pragma unroll
  for (int g = 0; g < G; ++g)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      qr[g][e] = active ? bf(q[(head0 + g) * HD + d0 + e]) * scale : 0.f;
}

/// Where position pos of sequence s lives in the cache (slot · kv_heads).
__device__ __forceinline__ int64_t kv_row(const PagedKvView &kv, int s,
                                          int pos) {
  const int block =
      kv.block_tables[int64_t(s) * kv.table_width + pos / kv.block_size];
  return (int64_t(block) * kv.block_size + pos % kv.block_size) * kv.kv_heads;
}

} // namespace engine::cuda
