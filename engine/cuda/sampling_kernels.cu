// engine/cuda/sampling_kernels.cu - one token per row of logits, on the
// device: greedy, temperature, top-k, top-p and an inverse-CDF draw.
//
// One block of 1024 threads per row. Nothing is sorted: the top-k and top-p
// cuts are thresholds found by bisection on the bit patterns of the
// unnormalized probabilities e = exp((x − max) / T) ∈ [0, 1] (non-negative
// floats order as their bits do), each step one block reduction. Every
// reduction adds in a fixed order, so a row always gives the same token.
#include "engine/cuda/device_math.cuh"

#include <cfloat>
#include <cstdint>

namespace engine::cuda {

namespace {
constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / 32;

__device__ float block_sum(float v, float *scratch) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  v = scratch[lane];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// The warp's largest (value, index), the lowest index on ties, in every
/// lane.
__device__ void warp_argmax(float &best, int &at) {
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, best, o);
    const int oi = __shfl_xor_sync(0xffffffffu, at, o);
    if (ov > best || (ov == best && oi < at)) {
      best = ov;
      at = oi;
    }
  }
}

/// (value, index) of the row's largest non-NaN element, lowest index on
/// ties; index 0 when every element is NaN.
__device__ int block_argmax(const float *x, int n, float *sv, int *si) {
  float best = -INFINITY;
  int at = n; // none yet
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = x[i];
    if (v > best || (v == best && at == n)) { // first index that reaches best
      best = v;
      at = i;
    }
  }
  warp_argmax(best, at);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) {
    sv[warp] = best;
    si[warp] = at;
  }
  __syncthreads();
  best = sv[lane];
  at = si[lane];
  warp_argmax(best, at);
  return at == n ? 0 : at;
}

/// The largest bit pattern c in [lo, hi) with f(c) ≥ target, where
/// f(c) = Σ over e ≥ float(c) of weight(e) falls as c grows and f(lo) ≥
/// target. count: weight 1 (top-k), else weight e (top-p).
__device__ uint32_t bisect_threshold(const float *e, int n, uint32_t lo,
                                     uint32_t hi, float target, bool count,
                                     float *scratch) {
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const float c = __uint_as_float(mid);
    float f = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      if (e[i] >= c)
        f += count ? 1.f : e[i];
    if (block_sum(f, scratch) >= target)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

__global__ void __launch_bounds__(kThreads)
    sample_kernel(float *logits, int vocab, SamplingView params,
                  int32_t *tokens) {
  __shared__ float scratch[32];
  __shared__ int iscratch[32];
  __shared__ float seg_end[kWarps];
  wait_for_previous_kernel();
  const int row = blockIdx.x;
  float *x = logits + int64_t(row) * vocab;
  const float temperature = params.temperature[row];

  const int greedy = block_argmax(x, vocab, scratch, iscratch);
  const float top = x[greedy];
  // Overwritten by the draw below; kept if rounding left no chunk to walk.
  if (threadIdx.x == 0)
    tokens[row] = greedy;
  // Greedy, and the CPU Sampler's fallback for an infinite maximum.
  if (!(temperature > 0.f) || isinf(top) || isnan(top))
    return;

  // e = exp((x − max) / T); NaN logits get no mass. Without a cut, e is
  // computed where it is needed (two passes over the row, no write);
  // with one, it is stored for the bisections.
  const float inv_t = 1.f / temperature;
  auto weight = [&](float v) {
    return isnan(v) ? 0.f : __expf((v - top) * inv_t);
  };
  const int k = params.top_k[row];
  const float p = params.top_p[row];
  const bool cut = (k > 0 && k < vocab) || p < 1.f;
  if (cut) {
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
      x[i] = weight(x[i]);
    __syncthreads();
  }
  auto mass = [&](int i) { return cut ? x[i] : weight(x[i]); };

  // Bit patterns of [0, 1]: 0 … 0x3f800000 (e of the maximum is exactly 1).
  const uint32_t one_plus = 0x3f800001u;
  if (k > 0 && k < vocab) {
    const float c = __uint_as_float(
        bisect_threshold(x, vocab, 0, one_plus, float(k), true, scratch));
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
      if (x[i] < c)
        x[i] = 0.f;
    __syncthreads();
  }
  if (p < 1.f) {
    float z = 0.f;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
      z += x[i];
    z = block_sum(z, scratch);
    const float c = __uint_as_float(
        bisect_threshold(x, vocab, 0, one_plus, p * z, false, scratch));
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
      if (x[i] < c)
        x[i] = 0.f;
    __syncthreads();
  }

  // Inverse CDF in vocabulary order: warp w owns the contiguous segment
  // [w·seg, (w+1)·seg); the segments' sums are scanned, and the warp whose
  // segment holds the target finds the token in it.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int seg = (vocab + kWarps - 1) / kWarps;
  const int begin = min(vocab, warp * seg), end = min(vocab, begin + seg);
  float mine = 0.f;
  for (int i = begin + lane; i < end; i += 32)
    mine += mass(i);
  mine = warp_sum(mine);
  __syncthreads(); // scratch was last used by a reduction above
  if (lane == 0)
    scratch[warp] = mine;
  __syncthreads();
  if (warp == 0) { // inclusive scan of the 32 segment sums
    float incl = scratch[lane];
    for (int o = 1; o < 32; o <<= 1) {
      const float up = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o)
        incl += up;
    }
    seg_end[lane] = incl;
  }
  __syncthreads();
  // Segment w covers [seg_end[w − 1], seg_end[w]): the ranges tile
  // [0, total) exactly, so exactly one segment holds the target, or, when
  // rounding puts the target at the total, the last one that added mass.
  const float total = seg_end[kWarps - 1];
  const float target = params.uniform[row] * total;
  const float before = warp ? seg_end[warp - 1] : 0.f;
  const float after = seg_end[warp];
  const bool holds = before < after && before <= target &&
                     (target < after || (target >= total && after == total));
  if (!holds)
    return;
  // The owner warp splits its segment into 32 contiguous runs, one per
  // lane: sums first (no early exit, so the loads overlap), a scan, then
  // the lane whose run holds the target walks it.
  const int len = end - begin, per = (len + 31) / 32;
  const int lo = begin + min(len, lane * per);
  const int hi = begin + min(len, (lane + 1) * per);
  float sum = 0.f;
  for (int i = lo; i < hi; ++i)
    sum += mass(i);
  float incl = sum;
  for (int o = 1; o < 32; o <<= 1) {
    const float up = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o)
      incl += up;
  }
  float excl = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0)
    excl = 0.f;
  const float run_lo = before + excl, run_hi = before + incl;
  const unsigned holders = __ballot_sync(
      0xffffffffu, sum > 0.f && run_lo <= target && target < run_hi);
  const unsigned with_mass = __ballot_sync(0xffffffffu, sum > 0.f);
  // Rounding can leave the target past every run: the last run with mass
  // then gives its last token with mass.
  const int walker = holders ? __ffs(holders) - 1 : 31 - __clz(with_mass);
  if (lane != walker)
    return;
  const float want = target - run_lo;
  float local = 0.f;
  int pick = -1, last = -1;
  for (int i = lo; i < hi; ++i) {
    const float v = mass(i);
    local += v;
    if (v > 0.f) {
      last = i;
      if (pick < 0 && holders && local > want)
        pick = i;
    }
  }
  tokens[row] = pick >= 0 ? pick : last;
}
} // namespace

void launch_sample(float *logits, int rows, int vocab, SamplingView params,
                   int32_t *tokens, cudaStream_t stream) {
  if (rows > 0)
    launch_dependent(sample_kernel, rows, kThreads, 0, stream, logits, vocab,
                     params, tokens);
}

} // namespace engine::cuda
