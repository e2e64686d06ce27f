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

// R weight rows × M x rows over columns [k0, cols). x rows are zero-padded to
// a multiple of 32, so only the weight loads need a mask at the tail.
//
// The R rows are one contiguous stretch of memory; `next` (when not null) is
// the stretch a later block will read, prefetched R lines per step so that it
// is in cache by the time it is needed.
//
// Never inlined: with every block<R, M> inlined into rows(), clang 14 ran
// short of registers and reloaded row pointers and accumulators from the
// stack inside this loop (decode 6-8% slower than GCC's code, which keeps
// block<8, 1> a function of its own).
template <int R, int M>
ENGINE_AVX512BF16 __attribute__((noinline)) void
block(const MatmulJob &job, int64_t r, int64_t i, int64_t k0, bool accumulate,
      const char *next) {
  const int64_t cols = job.cols;
  const uint16_t *w = static_cast<const uint16_t *>(job.w) + r * cols;
  const uint16_t *x = job.xb + i * job.xb_stride;
  __m512 acc[R][M];
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < M; ++b)
      acc[a][b] = _mm512_setzero_ps();
  int64_t k = k0;
  for (; k + 32 <= cols; k += 32) {
    __m512i wv[R];
    for (int a = 0; a < R; ++a) {
      if (next)
        _mm_prefetch(next + ((k - k0) / 32 * R + a) * 64, _MM_HINT_T0);
      wv[a] = _mm512_loadu_si512(w + a * cols + k);
    }
    for (int b = 0; b < M; ++b) {
      __m512i xv = _mm512_loadu_si512(x + b * job.xb_stride + k);
      for (int a = 0; a < R; ++a)
        acc[a][b] = dot(acc[a][b], wv[a], xv);
    }
  }
  if (k < cols) {
    __mmask32 mask = __mmask32((1ull << (cols - k)) - 1);
    __m512i wv[R];
    for (int a = 0; a < R; ++a)
      wv[a] = _mm512_maskz_loadu_epi16(mask, w + a * cols + k);
    for (int b = 0; b < M; ++b) {
      __m512i xv = _mm512_loadu_si512(x + b * job.xb_stride + k);
      for (int a = 0; a < R; ++a)
        acc[a][b] = dot(acc[a][b], wv[a], xv);
    }
  }
  for (int b = 0; b < M; ++b)
    for (int a = 0; a < R; ++a) {
      float *out = job.y + (i + b) * job.rows + r + a;
      float s = _mm512_reduce_add_ps(acc[a][b]);
      *out = accumulate ? *out + s : s;
    }
}

// Rows [r, r + R) against x rows [i0, i1); prefetches `next` while on the
// first group of x rows.
template <int R>
ENGINE_AVX512BF16 void x_rows(const MatmulJob &job, int64_t r, int64_t i0,
                              int64_t i1, int64_t k0, bool accumulate,
                              const char *next) {
  int64_t i = i0;
  for (; i + 4 <= i1; i += 4, next = nullptr)
    block<R, 4>(job, r, i, k0, accumulate, next);
  switch (i1 - i) {
  case 3:
    block<R, 3>(job, r, i, k0, accumulate, next);
    break;
  case 2:
    block<R, 2>(job, r, i, k0, accumulate, next);
    break;
  case 1:
    block<R, 1>(job, r, i, k0, accumulate, next);
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
    for (; r + R <= r1; r += R) {
      const char *next =
          r + 2 * R <= r1
              ? reinterpret_cast<const char *>(w + (r + R) * job.cols)
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
