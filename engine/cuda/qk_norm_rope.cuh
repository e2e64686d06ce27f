// engine/cuda/qk_norm_rope.cuh - one attention head's RMS norm and rotary
// embedding, as a warp does it: shared by the kernel that does it for a
// whole step (launch_qk_norm_rope_store) and the decode attention kernel
// that does it for its own heads (QkNormRope, kernels.h), so both give the
// same bits. Included by .cu files only.
#pragma once

#include "engine/cuda/device_math.cuh"

namespace engine::cuda {

/// dst[0, hd) = bf16(RoPE(bf16(src · rsqrt(mean(src²) + eps) · w))): the
/// head's norm rounded to bf16 first, as Hugging Face rounds the normed head
/// to the model's dtype, then rotated with NeoX's pairing by the position's
/// tables rope_c and rope_s (cos and sin, hd/2 each). Every lane of the warp
/// calls it; buf is the warp's own hd floats (a lane reads its RoPE partner
/// from there, whatever the head size).
__device__ __forceinline__ void norm_rope_head(const uint16_t *src,
                                               const float *w, int hd,
                                               float eps, const float *rope_c,
                                               const float *rope_s, float *buf,
                                               uint16_t *dst) {
  const int lane = threadIdx.x % 32, half = hd / 2;
  float ss = 0;
  for (int d = lane; d < hd; d += 32) {
    const float v = bf(src[d]);
    buf[d] = v;
    ss += v * v;
  }
  for (int o = 16; o > 0; o >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, o);
  const float inv = rsqrtf(ss / hd + eps);
  __syncwarp();
  for (int d = lane; d < hd; d += 32) {
    const float x = __bfloat162float(__float2bfloat16_rn(buf[d] * inv * w[d]));
    const int p = d < half ? d + half : d - half;
    const float y = __bfloat162float(__float2bfloat16_rn(buf[p] * inv * w[p]));
    const int i = d < half ? d : d - half;
    // The rounding spelled out (x·c fused, y·s rounded first), so both
    // callers give the same bits whichever product the compiler would fuse.
    const float ys = __fmul_rn(y, rope_s[i]);
    dst[d] = to_bf(__fmaf_rn(x, rope_c[i], d < half ? -ys : ys));
  }
  __syncwarp(); // buf is rewritten by this warp's next head
}

/// dst[0, hd) = src[0, hd), by the warp: a v head into the cache.
__device__ __forceinline__ void copy_head(const uint16_t *src, int hd,
                                          uint16_t *dst) {
  for (int d = threadIdx.x % 32; d < hd; d += 32)
    dst[d] = src[d];
}

} // namespace engine::cuda
