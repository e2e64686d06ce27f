// engine/cpu/matmul_avx2_bf16.cpp - bf16 weights against a few x rows (batched
// decode) at the avx2 level: each block of weights widened to fp32 once, then
// used for every x row.
//
// The general avx2 kernel (matmul_avx2.cpp) widens eight weights (a
// vpmovzxwd and a shift) for every three FMAs: at 16 x rows those two
// operations compete with the FMAs for the vector pipes, and it ran at about
// half the FMA peak. Here a block of three weight rows by kColumnBlock
// columns is widened into an fp32 buffer in L1 (a 32-byte load, a shift and a
// mask for 16 weights, once), and a three-by-four register block multiplies
// it by the x rows, four at a time: 12 accumulators, 3 weight vectors and
// one x vector, 12 FMAs for 7 loads a step and nothing else. The
// accumulators stay unreduced between blocks of columns, in a stash.
//
// Two details carry much of the gain (matmul_bench, Zen 3): the next block's
// weights are prefetched while one is multiplied (without it the first x
// rows waited on memory and the kernel was slower than the general one), and
// the split x rows are padded by a group (split_stride), since rows a
// multiple of 4 KiB long all fell into the same L1 sets. Taking row blocks
// in groups per block of columns, so that x's block is reused from L1, was
// 10-20% slower: the weights become a strided stream.
#include "engine/cpu/avx2_math.h"
#include "engine/cpu/matmul_kernels.h"
#include "engine/dtype.h"

#include <algorithm>
#include <immintrin.h>

#define ENGINE_AVX2 __attribute__((target("avx2,fma")))

namespace engine::cpu_detail {
namespace {

constexpr int64_t kRows = 3;          // weight rows a block
constexpr int kXRows = 4;             // x rows a step
constexpr int64_t kColumnBlock = 256; // columns widened at once
constexpr int64_t kGroup = 16;        // columns one 32-byte load of bf16 holds

// acc[a][b] += wb[a, :n] · x[b, :n] for R weight rows (row stride
// kColumnBlock in wb) and M x rows (row stride `cols`), n a multiple of 8.
template <int R, int M>
ENGINE_AVX2 inline void steps(const float *wb, const float *x, int64_t cols,
                              int64_t n, __m256 (&acc)[R][M]) {
  for (int64_t k = 0; k < n; k += 8) {
    __m256 w[R];
    for (int a = 0; a < R; ++a)
      w[a] = _mm256_load_ps(wb + a * kColumnBlock + k);
    for (int b = 0; b < M; ++b) {
      const __m256 xv = _mm256_loadu_ps(x + b * cols + k);
      for (int a = 0; a < R; ++a)
        acc[a][b] = _mm256_fmadd_ps(w[a], xv, acc[a][b]);
    }
  }
}

// Every x row [i0, i1) (a multiple of M apart) against the widened block,
// columns [c0, c0 + n), the accumulators in `stash` (kRows per x row).
template <int R, int M>
ENGINE_AVX2 void x_block(const MatmulJob &job, const float *xs, const float *wb,
                         int64_t c0, int64_t n, int64_t i0, int64_t i1,
                         __m256 *stash) {
  for (int64_t i = i0; i < i1; i += M) {
    __m256 acc[R][M];
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < M; ++b)
        acc[a][b] = stash[(i + b) * kRows + a];
    steps<R, M>(wb, xs + i * split_stride(job.cols) + c0,
                split_stride(job.cols), n, acc);
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < M; ++b)
        stash[(i + b) * kRows + a] = acc[a][b];
  }
}

template <int R>
ENGINE_AVX2 void all_x(const MatmulJob &job, const float *xs, const float *wb,
                       int64_t c0, int64_t n, __m256 *stash) {
  const int64_t m = job.m, whole = m / kXRows * kXRows;
  x_block<R, kXRows>(job, xs, wb, c0, n, 0, whole, stash);
  switch (m - whole) {
  case 3:
    x_block<R, 3>(job, xs, wb, c0, n, whole, m, stash);
    break;
  case 2:
    x_block<R, 2>(job, xs, wb, c0, n, whole, m, stash);
    break;
  case 1:
    x_block<R, 1>(job, xs, wb, c0, n, whole, m, stash);
    break;
  }
}

// wb[a, :n] = the weights of rows [r, r + R), columns [c0, c0 + n), as fp32,
// each group of 16 as its 8 even-numbered weights then its 8 odd ones: a
// 32-byte load, a shift and a mask for 16 weights.
template <int R>
ENGINE_AVX2 void widen(const MatmulJob &job, int64_t r, int64_t c0, int64_t n,
                       float *wb) {
  const uint16_t *w = static_cast<const uint16_t *>(job.w);
  const __m256i high = _mm256_set1_epi32(int(0xffff0000u));
  for (int a = 0; a < R; ++a) {
    const uint16_t *row = w + (r + a) * job.cols + c0;
    float *out = wb + a * kColumnBlock;
    for (int64_t k = 0; k < n; k += kGroup) {
      const __m256i v =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + k));
      _mm256_store_ps(out + k, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
      _mm256_store_ps(out + k + 8,
                      _mm256_castsi256_ps(_mm256_and_si256(v, high)));
    }
  }
}

// The weights of rows [r, r + R), columns [c0, c1), asked of memory now.
inline void prefetch_weights(const MatmulJob &job, int64_t r, int64_t R,
                             int64_t c0, int64_t c1) {
  const auto *w = static_cast<const char *>(job.w);
  for (int64_t a = 0; a < R; ++a)
    for (int64_t c = c0; c < c1; c += 32)
      __builtin_prefetch(w + ((r + a) * job.cols + c) * 2);
}

// y[:, r .. r + R) from the stash, plus the columns past the last whole
// group.
template <int R>
ENGINE_AVX2 void finish(const MatmulJob &job, int64_t r, const __m256 *stash) {
  const int64_t cols = job.cols, vector_end = cols / kGroup * kGroup;
  const uint16_t *w = static_cast<const uint16_t *>(job.w);
  for (int64_t i = 0; i < job.m; ++i)
    for (int a = 0; a < R; ++a) {
      float s = hsum(stash[i * kRows + a]);
      for (int64_t t = vector_end; t < cols; ++t)
        s += job.x[i * cols + t] * bf16_to_f32(w[(r + a) * cols + t]);
      job.y[i * job.rows + r + a] = s;
    }
}

// Rows [r, r + R) (R ≤ kRows), columns [c0, c0 + n): widened, then
// multiplied by every x row.
ENGINE_AVX2 void row_block_columns(const MatmulJob &job, const float *xs,
                                   int64_t r, int64_t R, int64_t c0, int64_t n,
                                   float *wb, __m256 *stash) {
  switch (R) {
  case 3:
    widen<3>(job, r, c0, n, wb);
    all_x<3>(job, xs, wb, c0, n, stash);
    break;
  case 2:
    widen<2>(job, r, c0, n, wb);
    all_x<2>(job, xs, wb, c0, n, stash);
    break;
  default:
    widen<1>(job, r, c0, n, wb);
    all_x<1>(job, xs, wb, c0, n, stash);
    break;
  }
}

ENGINE_AVX2 void finish_any(const MatmulJob &job, int64_t r, int64_t R,
                            const __m256 *stash) {
  switch (R) {
  case 3:
    return finish<3>(job, r, stash);
  case 2:
    return finish<2>(job, r, stash);
  default:
    return finish<1>(job, r, stash);
  }
}

} // namespace

ENGINE_AVX2 void split_columns_avx2(const float *x, int64_t m, int64_t cols,
                                    float *xs) {
  // Each half of a load becomes x0 x2 x4 x6 | x1 x3 x5 x7; the lower halves
  // of a group's two loads are its evens, the upper ones its odds.
  const __m256i order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const int64_t whole = cols / kGroup * kGroup;
  for (int64_t i = 0; i < m; ++i) {
    const float *in = x + i * cols;
    float *out = xs + i * split_stride(cols);
    for (int64_t k = 0; k < whole; k += kGroup) {
      const __m256 lo =
          _mm256_permutevar8x32_ps(_mm256_loadu_ps(in + k), order);
      const __m256 hi =
          _mm256_permutevar8x32_ps(_mm256_loadu_ps(in + k + 8), order);
      _mm256_storeu_ps(out + k, _mm256_permute2f128_ps(lo, hi, 0x20));
      _mm256_storeu_ps(out + k + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    }
  }
}

ENGINE_AVX2 void matmul_rows_avx2_bf16(const MatmulJob &job, const float *xs,
                                       int64_t r0, int64_t r1) {
  alignas(32) __m256 stash[kFewRowsMax * kRows];
  alignas(32) float wb[kRows * kColumnBlock];
  const int64_t m = job.m, vector_end = job.cols / kGroup * kGroup;
  for (int64_t r = r0; r < r1; r += kRows) {
    const int64_t R = std::min(kRows, r1 - r);
    std::fill(stash, stash + m * kRows, _mm256_setzero_ps());
    for (int64_t c0 = 0; c0 < vector_end; c0 += kColumnBlock) {
      const int64_t n = std::min(kColumnBlock, vector_end - c0);
      // The next block of these rows' weights, or the next rows' first, so
      // that memory works while these are multiplied.
      if (c0 + n < vector_end)
        prefetch_weights(job, r, R, c0 + n,
                         std::min(vector_end, c0 + n + kColumnBlock));
      else if (r + R < r1)
        prefetch_weights(job, r + R, std::min(kRows, r1 - r - R), 0,
                         std::min(vector_end, kColumnBlock));
      row_block_columns(job, xs, r, R, c0, n, wb, stash);
    }
    finish_any(job, r, R, stash);
  }
}

} // namespace engine::cpu_detail
