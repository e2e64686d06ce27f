// engine/cpu/matmul_avx512bf16.cpp - bf16 weights times bf16-rounded x with
// vdpbf16ps (32 products per instruction, fp32 accumulation): the kernel for
// batches too small for AMX, and for column tails AMX leaves over.
//
// At m = 1 the kernel only has to keep the memory system busy: eight weight
// rows stream at once, and the next eight (one contiguous stretch) are
// prefetched line by line meanwhile; measured against prefetching each row a
// fixed distance ahead, and against none, this streams fastest.
#include "engine/cpu/matmul_kernels.h"

#include <algorithm>
#include <immintrin.h>

#define ENGINE_AVX512BF16                                                      \
  __attribute__((                                                              \
      target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

ENGINE_AVX512BF16 inline __m512 dot(__m512 acc, __m512i w, __m512i x) {
  return _mm512_dpbf16_ps(acc, (__m512bh)w, (__m512bh)x);
}

// The sums of sixteen vectors v[4a + b] in one: lane 4b + a holds v[4a + b]'s.
// A tree of 15 adds and 30 shuffles, where reducing each vector on its own
// takes 16 × 4 adds and as many shuffles, and as many scalar stores.
ENGINE_AVX512BF16 inline __m512 sum16(const __m512 v[16]) {
  __m512 c[8], d[4], e[2];
  // 512 → 256 bits: c[p]'s low half is v[2p]'s eight partial sums, its high
  // half v[2p + 1]'s.
  for (int p = 0; p < 8; ++p)
    c[p] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0x44),
                         _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0xee));
  // → 128 bits: d[p]'s 128-bit lane j is v[4p + j]'s four partial sums.
  for (int p = 0; p < 4; ++p)
    d[p] = _mm512_add_ps(_mm512_shuffle_f32x4(c[2 * p], c[2 * p + 1], 0x88),
                         _mm512_shuffle_f32x4(c[2 * p], c[2 * p + 1], 0xdd));
  // → 64 bits: e[p]'s lane j holds v[8p + j]'s two partial sums, then
  // v[8p + 4 + j]'s.
  for (int p = 0; p < 2; ++p)
    e[p] = _mm512_add_ps(_mm512_shuffle_ps(d[2 * p], d[2 * p + 1], 0x88),
                         _mm512_shuffle_ps(d[2 * p], d[2 * p + 1], 0xdd));
  // → 32 bits: lane j is v[j], v[4 + j], v[8 + j], v[12 + j].
  return _mm512_add_ps(_mm512_shuffle_ps(e[0], e[1], 0x88),
                       _mm512_shuffle_ps(e[0], e[1], 0xdd));
}

// R weight rows × M x rows over columns [k0, cols). x rows are zero-padded to
// a multiple of 32, so only the weight loads need a mask at the tail.
//
// `next` is a stretch of weights a later block will read, P lines of it
// prefetched per step so that it is in cache by the time it is needed (P = 0:
// none). P = R covers a whole block in one pass over x, and goes to L1;
// less is one share of a block spread over several groups of x rows
// (x_rows), and goes to L2, where it does not evict the x rows the blocks
// read. P is a template parameter, so that the loop holds no branch for it
// (GCC kept runtime flags for it on the stack and tested them every step).
//
// Never inlined: with every block<R, M> inlined into rows(), clang 14 ran
// short of registers and reloaded row pointers and accumulators from the
// stack inside this loop (decode 6-8% slower than GCC's code, which keeps
// block<8, 1> a function of its own).
template <int R, int M, int P>
ENGINE_AVX512BF16 __attribute__((noinline)) void
block(const MatmulJob &job, int64_t r, int64_t i, int64_t k0, bool accumulate,
      const char *next) {
  const int64_t cols = job.cols;
  const uint16_t *w = static_cast<const uint16_t *>(job.w) + r * cols;
  const uint16_t *x = job.xb + i * job.xb_stride;
  // The loops over a block's rows are unrolled before GCC decides where the
  // accumulators live: else GCC 12 keeps acc in memory, zeroing it there and
  // storing and reloading all of it around the loop (prefill's matmuls 7-10%
  // slower than clang's code, which unrolls them anyway).
  __m512 acc[R][M];
#pragma GCC unroll 16
  for (int a = 0; a < R; ++a)
#pragma GCC unroll 16
    for (int b = 0; b < M; ++b)
      acc[a][b] = _mm512_setzero_ps();
  int64_t k = k0;
  for (; k + 32 <= cols; k += 32) {
    __m512i wv[R];
#pragma GCC unroll 16
    for (int a = 0; a < R; ++a) {
      if constexpr (P == R)
        _mm_prefetch(next + a * 64, _MM_HINT_T0);
      else if (a < P)
        _mm_prefetch(next + a * 64, _MM_HINT_T1);
      wv[a] = _mm512_loadu_si512(w + a * cols + k);
    }
    next += P * 64;
#pragma GCC unroll 16
    for (int b = 0; b < M; ++b) {
      __m512i xv = _mm512_loadu_si512(x + b * job.xb_stride + k);
#pragma GCC unroll 16
      for (int a = 0; a < R; ++a)
        acc[a][b] = dot(acc[a][b], wv[a], xv);
    }
  }
  if (k < cols) {
    __mmask32 mask = __mmask32((1ull << (cols - k)) - 1);
    __m512i wv[R];
#pragma GCC unroll 16
    for (int a = 0; a < R; ++a)
      wv[a] = _mm512_maskz_loadu_epi16(mask, w + a * cols + k);
#pragma GCC unroll 16
    for (int b = 0; b < M; ++b) {
      __m512i xv = _mm512_loadu_si512(x + b * job.xb_stride + k);
#pragma GCC unroll 16
      for (int a = 0; a < R; ++a)
        acc[a][b] = dot(acc[a][b], wv[a], xv);
    }
  }
  if constexpr (R == 4 && M == 4) {
    // Sixteen sums at once; x row b's four outputs are adjacent in y.
    __m512 v[16];
#pragma GCC unroll 16
    for (int a = 0; a < R; ++a)
#pragma GCC unroll 16
      for (int b = 0; b < M; ++b)
        v[4 * a + b] = acc[a][b];
    const __m512 sums = sum16(v);
    const __m128 row_sums[4] = {
        _mm512_extractf32x4_ps(sums, 0), _mm512_extractf32x4_ps(sums, 1),
        _mm512_extractf32x4_ps(sums, 2), _mm512_extractf32x4_ps(sums, 3)};
#pragma GCC unroll 16
    for (int b = 0; b < M; ++b) {
      float *out = job.y + (i + b) * job.rows + r;
      const __m128 s = row_sums[b];
      _mm_storeu_ps(out, accumulate ? _mm_add_ps(_mm_loadu_ps(out), s) : s);
    }
    return;
  }
#pragma GCC unroll 16
  for (int b = 0; b < M; ++b)
#pragma GCC unroll 16
    for (int a = 0; a < R; ++a) {
      float *out = job.y + (i + b) * job.rows + r + a;
      float s = _mm512_reduce_add_ps(acc[a][b]);
      *out = accumulate ? *out + s : s;
    }
}

// block<R, M, lines>: `lines` is 0 (nothing to prefetch), 1, 2, 4 or 8, and
// at most R.
template <int R, int M>
ENGINE_AVX512BF16 void block_prefetching(const MatmulJob &job, int64_t r,
                                         int64_t i, int64_t k0, bool accumulate,
                                         const char *next, int lines) {
  if (!next)
    return block<R, M, 0>(job, r, i, k0, accumulate, nullptr);
  if constexpr (R >= 8)
    if (lines == 8)
      return block<R, M, 8>(job, r, i, k0, accumulate, next);
  if constexpr (R >= 4)
    if (lines == 4)
      return block<R, M, 4>(job, r, i, k0, accumulate, next);
  if constexpr (R >= 2)
    if (lines == 2)
      return block<R, M, 2>(job, r, i, k0, accumulate, next);
  block<R, M, 1>(job, r, i, k0, accumulate, next);
}

// Rows [r, r + R) against x rows [i0, i1), prefetching the R rows at `next`
// (when not null) meanwhile, spread evenly over the groups of x rows: issued
// all during the first group, the prefetches came in bursts the memory system
// did not keep up with (16 x rows on a Zen 4: 190-225 GFLOP/s, against
// 250-310 spread out and into L2).
template <int R>
ENGINE_AVX512BF16 void x_rows(const MatmulJob &job, int64_t r, int64_t i0,
                              int64_t i1, int64_t k0, bool accumulate,
                              const char *next) {
  const int64_t groups = (i1 - i0 + 3) / 4;
  const int64_t steps = (job.cols - k0) / 32;
  // Lines per step: the block's R lines shared out over the groups, rounded
  // down to a power of two (R is one).
  int lines = 1;
  while (lines * 2 * groups <= R)
    lines *= 2;
  const char *const next_end = next ? next + R * steps * 64 : nullptr;
  int64_t i = i0;
  auto advance = [&] {
    if (next && (next += lines * steps * 64) >= next_end)
      next = nullptr;
  };
  for (; i + 4 <= i1; i += 4, advance())
    block_prefetching<R, 4>(job, r, i, k0, accumulate, next, lines);
  switch (i1 - i) {
  case 3:
    block_prefetching<R, 3>(job, r, i, k0, accumulate, next, lines);
    break;
  case 2:
    block_prefetching<R, 2>(job, r, i, k0, accumulate, next, lines);
    break;
  case 1:
    block_prefetching<R, 1>(job, r, i, k0, accumulate, next, lines);
    break;
  }
}

ENGINE_AVX512BF16 void convert(const float *x, int64_t cols, int64_t i0,
                               int64_t i1, uint16_t *xb, int64_t stride) {
  for (int64_t i = i0; i < i1; ++i) {
    const float *src = x + i * cols;
    uint16_t *dst = xb + i * stride;
    // Two fp32 vectors become one vector of 32 bf16 (round to nearest even).
    for (int64_t k = 0; k < stride; k += 32) {
      int64_t left = cols - k;
      __mmask16 lo = left >= 16 ? 0xffff
                     : left > 0 ? __mmask16((1u << left) - 1)
                                : 0;
      __mmask16 hi = left >= 32  ? 0xffff
                     : left > 16 ? __mmask16((1u << (left - 16)) - 1)
                                 : 0;
      __m512 a = _mm512_maskz_loadu_ps(lo, src + k);
      __m512 b = _mm512_maskz_loadu_ps(hi, src + k + 16);
      _mm512_storeu_si512(dst + k, (__m512i)_mm512_cvtne2ps_pbh(b, a));
    }
  }
}

template <int R>
ENGINE_AVX512BF16 void rows_by(const MatmulJob &job, int64_t r0, int64_t r1,
                               int64_t k0, bool accumulate) {
  const uint16_t *w = static_cast<const uint16_t *>(job.w);
  // x in chunks that stay in L2 while the weights stream past.
  int64_t chunk =
      std::max<int64_t>(4, (512 << 10) / (job.xb_stride * 2) / 4 * 4);
  for (int64_t i0 = 0; i0 < job.m; i0 += chunk) {
    int64_t i1 = std::min(job.m, i0 + chunk);
    int64_t r = r0;
    // Two blocks ahead with several groups of x rows, the next with one.
    const int64_t ahead = i1 - i0 <= 4 ? 1 : 2;
    for (; r + R <= r1; r += R) {
      const char *next =
          r + (ahead + 1) * R <= r1
              ? reinterpret_cast<const char *>(w + (r + ahead * R) * job.cols)
              : nullptr;
      x_rows<R>(job, r, i0, i1, k0, accumulate, next);
    }
    for (; r < r1; ++r)
      x_rows<1>(job, r, i0, i1, k0, accumulate, nullptr);
  }
}

ENGINE_AVX512BF16 void rows(const MatmulJob &job, int64_t r0, int64_t r1,
                            int64_t k0, bool accumulate) {
  // Decode streams eight rows at once; with more x rows, four rows leave
  // registers for 4×4 accumulators.
  if (job.m == 1)
    rows_by<8>(job, r0, r1, k0, accumulate);
  else
    rows_by<4>(job, r0, r1, k0, accumulate);
}

} // namespace

// Plain wrappers: a target attribute on a declaration the header also
// declares would make GCC treat them as two versions of one function.
void convert_rows_bf16(const float *x, int64_t cols, int64_t i0, int64_t i1,
                       uint16_t *xb, int64_t stride) {
  convert(x, cols, i0, i1, xb, stride);
}

void matmul_rows_avx512bf16(const MatmulJob &job, int64_t r0, int64_t r1,
                            int64_t k0, bool accumulate) {
  rows(job, r0, r1, k0, accumulate);
}

} // namespace engine::cpu_detail
