// engine/cuda/sampling_kernels.cu - one token per row of logits, on the
// device: greedy, temperature, top-k, top-p and an inverse-CDF draw.
//
// Blocks of 1024 threads: one per row, or several reading a row once in the
// split form (split_sampling.h). Nothing is sorted: the top-k and top-p
// cuts are thresholds found by bisection on the bit patterns of the
// unnormalized probabilities e = exp((x − max) / T) ∈ [0, 1] (non-negative
// floats order as their bits do), each step one block reduction. Every
// reduction adds in a fixed order, so a row always gives the same token.
#include "engine/cuda/device_math.cuh"
#include "engine/cuda/split_sampling.h"

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

/// Lane i gets the sum of lanes 0..i's v.
__device__ __forceinline__ float warp_inclusive_sum(float v) {
  const int lane = threadIdx.x % 32;
  for (int o = 1; o < 32; o <<= 1) {
    const float up = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o)
      v += up;
  }
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

/// The block's largest (value, index) from each thread's, the lowest index
/// on ties, in every thread; sv and si hold a value each per warp.
__device__ void block_argmax_merge(float &best, int &at, float *sv, int *si) {
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
}

/// Of a warp's lanes, each a range in order, the one that takes a target:
/// the first with mass whose range ends past it, or, when rounding leaves
/// it past every range, the last with mass (-1: none has mass). A range
/// without mass can still span an ulp, as scans add in another order for
/// each lane, and must never take it.
__device__ __forceinline__ int lane_holding(bool has_mass, bool ends_past) {
  const unsigned holding = __ballot_sync(0xffffffffu, has_mass && ends_past);
  const unsigned with_mass = __ballot_sync(0xffffffffu, has_mass);
  return holding ? __ffs(holding) - 1 : 31 - __clz(with_mass);
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
  block_argmax_merge(best, at, sv, si);
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

/// Inverse CDF in vocabulary order over [begin, end) of the masses mass(i):
/// the token at `fraction` ∈ [0, 1] of their sum goes to *token (left as it
/// is when rounding leaves no run to walk). Warp w owns the contiguous
/// segment [begin + w·seg, begin + (w+1)·seg); the segments' sums are
/// scanned, and the warp whose segment holds the target finds the token in
/// it. Every thread of the block calls it.
template <class Mass>
__device__ void draw_in_range(int begin, int end, float fraction, Mass mass,
                              float *scratch, float *seg_end, int32_t *token) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int seg = (end - begin + kWarps - 1) / kWarps;
  const int sb = min(end, begin + warp * seg), se = min(end, sb + seg);
  float mine = 0.f;
  for (int i = sb + lane; i < se; i += 32)
    mine += mass(i);
  mine = warp_sum(mine);
  __syncthreads(); // scratch was last used by a reduction before this
  if (lane == 0)
    scratch[warp] = mine;
  __syncthreads();
  if (warp == 0) // inclusive scan of the 32 segment sums
    seg_end[lane] = warp_inclusive_sum(scratch[lane]);
  __syncthreads();
  // Segment w covers [seg_end[w − 1], seg_end[w]); lane w of every warp
  // reads it, and every warp finds the owner.
  const float total = seg_end[kWarps - 1];
  const float target = fraction * total;
  static_assert(kWarps == 32, "lane w of each warp reads segment w");
  if (warp != lane_holding(scratch[lane] > 0.f, target < seg_end[lane]))
    return; // no mass at all: -1, and the greedy token stays
  const float before = warp ? seg_end[warp - 1] : 0.f;
  // The owner warp splits its segment into 32 contiguous runs, one per
  // lane: sums first (no early exit, so the loads overlap), a scan, then
  // the lane whose run holds the target walks it.
  const int len = se - sb, per = (len + 31) / 32;
  const int lo = sb + min(len, lane * per);
  const int hi = sb + min(len, (lane + 1) * per);
  float sum = 0.f;
  for (int i = lo; i < hi; ++i)
    sum += mass(i);
  const float incl = warp_inclusive_sum(sum);
  float excl = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0)
    excl = 0.f;
  const float run_lo = before + excl, run_hi = before + incl;
  // As between segments; past every run, the last run with mass gives its
  // last token with mass.
  if (lane != lane_holding(sum > 0.f, target < run_hi))
    return;
  const bool holds = target < run_hi;
  const float want = target - run_lo;
  float local = 0.f;
  int pick = -1, last = -1;
  for (int i = lo; i < hi; ++i) {
    const float v = mass(i);
    local += v;
    if (v > 0.f) {
      last = i;
      if (pick < 0 && holds && local > want)
        pick = i;
    }
  }
  *token = pick >= 0 ? pick : last;
}

/// Whether a row's draw is cut to its top k or its top p.
__device__ __forceinline__ bool has_cut(int k, float p, int vocab) {
  return (k > 0 && k < vocab) || p < 1.f;
}

/// e = exp((v − top) / T); NaN logits get no mass.
struct Weight {
  float top, inv_t;
  __device__ float operator()(float v) const {
    return isnan(v) ? 0.f : __expf((v - top) * inv_t);
  }
};

/// A sampled row's draw, the whole row by one block, once its maximum (top,
/// finite) is known: the top-k and top-p cuts, then the inverse CDF. x is
/// overwritten with scratch values when there is a cut. Every thread of the
/// block calls it.
__device__ void draw_row(float *x, int vocab, Weight weight, int k, float p,
                         float uniform, float *scratch, float *seg_end,
                         int32_t *token) {
  // Without a cut, e is computed where it is needed (two passes over the
  // row, no write); with one, it is stored for the bisections.
  const bool cut = has_cut(k, p, vocab);
  if (cut) {
    // Every thread has read the maximum's logit (weight.top) before any
    // overwrites it with its e.
    __syncthreads();
    for (int i = threadIdx.x; i < vocab; i += blockDim.x)
      x[i] = weight(x[i]);
    __syncthreads();
  }
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
  if (cut)
    draw_in_range(
        0, vocab, uniform, [&](int i) { return x[i]; }, scratch, seg_end,
        token);
  else
    draw_in_range(
        0, vocab, uniform, [&](int i) { return weight(x[i]); }, scratch,
        seg_end, token);
}

/// The whole row by one block: the argmax pass, then draw_row.
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
  // Overwritten by the draw below; kept if rounding left no run to walk.
  if (threadIdx.x == 0)
    tokens[row] = greedy;
  // Greedy, and the CPU Sampler's fallback for an infinite maximum.
  if (!(temperature > 0.f) || isinf(top) || isnan(top))
    return;
  draw_row(x, vocab, Weight{top, 1.f / temperature}, params.top_k[row],
           params.top_p[row], params.uniform[row], scratch, seg_end,
           tokens + row);
}

/// Where segment w (warp w's part) of block b's chunk lies in a row of
/// `vocab` split over `blocks` blocks: [begin, end), possibly empty.
__device__ __forceinline__ void segment_of(int vocab, int blocks, int b, int w,
                                           int &begin, int &end) {
  const int chunk = (vocab + blocks - 1) / blocks;
  const int cb = min(vocab, b * chunk), ce = min(vocab, cb + chunk);
  const int seg = (ce - cb + kWarps - 1) / kWarps;
  begin = min(ce, cb + w * seg);
  end = min(ce, begin + seg);
}

/// A thread's (or a segment's) running max m and sum of exp((v − m) / T).
struct Softmax {
  float m = -INFINITY, s = 0.f;
};

/// a and b as one: sums rescaled to the larger max (an empty side adds 0).
__device__ __forceinline__ Softmax merge(Softmax a, Softmax b, float inv_t) {
  Softmax r;
  r.m = fmaxf(a.m, b.m);
  r.s = (a.s > 0.f ? a.s * __expf((a.m - r.m) * inv_t) : 0.f) +
        (b.s > 0.f ? b.s * __expf((b.m - r.m) * inv_t) : 0.f);
  return r;
}

/// The split form (launch_sample with a workspace): a row's B blocks each
/// read a contiguous chunk once, warp w of a block a contiguous segment of
/// it, and keep each segment's running max and sum of exp((v − max) / T)
/// (online, as FlashAttention keeps a softmax's) and the block's argmax.
/// The last block of the row to finish (a ticket per row) merges them: the
/// argmax, the segments' masses rescaled to the row's maximum, scanned in
/// vocabulary order; the segment holding u · total is walked for the token.
/// One pass over the logits instead of two, spread over the GPU's SMs
/// instead of one; rows with a top-k or top-p cut are drawn whole by the
/// last block (draw_row), after the argmax pass.
__global__ void __launch_bounds__(kThreads)
    split_sample_kernel(float *logits, int vocab, SamplingView params,
                        int32_t *tokens, float2 *segments, float2 *bests,
                        int *tickets) {
  __shared__ float scratch[32];
  __shared__ int iscratch[32];
  __shared__ float seg_end[kWarps];
  __shared__ float bounds[kThreads];
  __shared__ int chosen, last_with_mass;
  __shared__ bool last_block;
  wait_for_previous_kernel();
  const int row = blockIdx.y, b = blockIdx.x, blocks = gridDim.x;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float *x = logits + int64_t(row) * vocab;
  const float temperature = params.temperature[row];
  const bool sampled = temperature > 0.f;
  const float inv_t = sampled ? 1.f / temperature : 0.f;
  float2 *row_segments = segments + int64_t(row) * kSplitSegments;
  float2 *row_bests = bests + int64_t(row) * kMaxSplitBlocks;

  int sb, se;
  segment_of(vocab, blocks, b, warp, sb, se);
  float best = -INFINITY;
  int at = vocab; // none yet
  Softmax mine;
#pragma unroll 4
  for (int i = sb + lane; i < se; i += 32) {
    const float v = x[i];
    if (v > best || (v == best && at == vocab)) { // first index reaching best
      best = v;
      at = i;
    }
    // NaN and −∞ carry no mass (and −∞ − −∞ would be NaN).
    if (sampled && v > -INFINITY) {
      if (v > mine.m) {
        mine.s = mine.s * __expf((mine.m - v) * inv_t) + 1.f;
        mine.m = v;
      } else {
        mine.s += __expf((v - mine.m) * inv_t);
      }
    }
  }
  if (sampled)
    for (int o = 16; o > 0; o >>= 1) {
      Softmax other;
      other.m = __shfl_xor_sync(0xffffffffu, mine.m, o);
      other.s = __shfl_xor_sync(0xffffffffu, mine.s, o);
      mine = merge(mine, other, inv_t);
    }
  if (lane == 0)
    row_segments[b * kWarps + warp] = make_float2(mine.m, mine.s);
  block_argmax_merge(best, at, scratch, iscratch);
  if (threadIdx.x == 0)
    row_bests[b] = make_float2(best, __int_as_float(at));

  // The last block of the row to get here merges every block's results.
  __threadfence(); // this block's results are visible before its ticket
  __syncthreads();
  if (threadIdx.x == 0)
    last_block = atomicAdd(tickets + row, 1) == blocks - 1;
  __syncthreads();
  if (!last_block)
    return;
  __threadfence();
  if (warp == 0) { // the argmax over blocks, lowest index on ties
    best = -INFINITY;
    at = vocab;
    if (lane < blocks) {
      const float2 r = __ldcg(row_bests + lane);
      best = r.x;
      at = __float_as_int(r.y);
    }
    warp_argmax(best, at);
    if (lane == 0)
      iscratch[0] = at == vocab ? 0 : at;
  }
  __syncthreads();
  const int greedy = iscratch[0];
  const float top = x[greedy];
  if (threadIdx.x == 0) {
    tickets[row] = 0; // ready for the next step
    // Overwritten by the draw below; kept if rounding left no run to walk.
    tokens[row] = greedy;
  }
  // Greedy, and the CPU Sampler's fallback for an infinite maximum.
  if (!sampled || isinf(top) || isnan(top))
    return;
  const Weight weight{top, inv_t};
  const int k = params.top_k[row];
  const float p = params.top_p[row];
  const float uniform = params.uniform[row];
  if (has_cut(k, p, vocab)) {
    draw_row(x, vocab, weight, k, p, uniform, scratch, seg_end, tokens + row);
    return;
  }

  // Each thread takes one segment (blocks · 32 ≤ 1024 of them): its mass at
  // the row's maximum, then a scan over the block in segment order, which
  // is vocabulary order. bounds[j] is where segment j's range ends, so
  // neighbours share a bound and the ranges tile [0, total).
  const int segs = blocks * kWarps, j = threadIdx.x;
  float mass = 0.f;
  if (j < segs) {
    const float2 r = __ldcg(row_segments + j);
    mass = r.y > 0.f ? r.y * __expf((r.x - top) * inv_t) : 0.f;
  }
  const float incl = warp_inclusive_sum(mass);
  if (lane == 31)
    scratch[warp] = incl;
  if (threadIdx.x == 0) {
    chosen = segs;
    last_with_mass = -1;
  }
  __syncthreads();
  if (warp == 0) // the warps' totals, scanned
    seg_end[lane] = warp_inclusive_sum(scratch[lane]);
  __syncthreads();
  bounds[j] = (warp ? seg_end[warp - 1] : 0.f) + incl;
  __syncthreads();
  const float total = bounds[segs - 1];
  const float target = uniform * total;
  // The scan adds in another order for each lane, so neighbouring bounds
  // can differ by an ulp where a segment has no mass: the first segment
  // with mass whose range ends past the target takes it (a target in such
  // a gap goes to the next token with mass), and when none does (the
  // target at the total) the last one with mass.
  if (j < segs && mass > 0.f) {
    atomicMax(&last_with_mass, j);
    if (target < bounds[j])
      atomicMin(&chosen, j);
  }
  __syncthreads();
  const int s = chosen < segs ? chosen : last_with_mass;
  if (s < 0)
    return; // no mass at all: cannot be (top's own e is 1), greedy stays
  const float s_lo = s ? bounds[s - 1] : 0.f, s_hi = bounds[s];
  const float fraction =
      s_hi > s_lo ? fminf(1.f, fmaxf(0.f, (target - s_lo) / (s_hi - s_lo)))
                  : 1.f;
  int begin, end;
  segment_of(vocab, blocks, s / kWarps, s % kWarps, begin, end);
  draw_in_range(
      begin, end, fraction, [&](int i) { return weight(x[i]); }, scratch,
      seg_end, tokens + row);
}
} // namespace

void launch_sample(float *logits, int rows, int vocab, SamplingView params,
                   int32_t *tokens, cudaStream_t stream,
                   const SampleWorkspace *split) {
  if (rows <= 0)
    return;
  // The split form's rows are the grid's y, which stops at 65,535.
  if (split == nullptr || rows > 65535) {
    launch_dependent(sample_kernel, rows, kThreads, 0, stream, logits, vocab,
                     params, tokens);
    return;
  }
  const int blocks = split_sampling_blocks(rows, vocab, split->sms);
  auto *segments = reinterpret_cast<float2 *>(split->scratch);
  float2 *bests = segments + int64_t(rows) * kSplitSegments;
  launch_dependent(split_sample_kernel, dim3(blocks, rows), kThreads, 0, stream,
                   logits, vocab, params, tokens, segments, bests,
                   split->tickets);
}

} // namespace engine::cuda
