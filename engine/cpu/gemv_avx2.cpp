// engine/cpu/gemv_avx2.cpp - the avx2 level's gemv candidates: bf16 weights
// widened to fp32 for FMA, in two forms.
//
// "avx2": 32-byte loads of 16 weights, split into the even-numbered ones (a
// shift left by 16 of each 32-bit lane) and the odd ones (the low half
// masked off), against x split the same way once per call. "avx2w": 16-byte
// loads of 8 weights widened with vpmovzxwd, against x as it is. Named
// FORM-rRuU-pfD[a]: R rows streamed at once, U steps a loop iteration (each
// with its own accumulators), the block D blocks ahead prefetched (D = 0:
// none); "a" first does the columns before each row's first load-sized
// boundary one by one, so that no load straddles two cache lines
// (safetensors puts tensors at 8-byte offsets: a 32-byte load from there
// straddles every other time).
#include "engine/cpu/avx2_math.h"
#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/gemv_rows.h"

#include <algorithm>
#include <cstdint>
#include <immintrin.h>
#include <vector>

#define ENGINE_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

// The columns before the first `bytes`-aligned weight of every row, when all
// rows share it (their length a multiple of `bytes`); 0 otherwise, or when
// not aligning.
int64_t head_columns(const GemvJob &job, bool align, int bytes) {
  if (!align || (job.cols * 2) % bytes != 0)
    return 0;
  const auto misalign = int64_t(reinterpret_cast<uintptr_t>(job.w) % bytes);
  return std::min<int64_t>(job.cols, (bytes - misalign) % bytes / 2);
}

// The columns the vector loop leaves: [0, head) and [from, cols).
float ends(const GemvJob &job, const uint16_t *row, int64_t head,
           int64_t from) {
  return scalar_columns(job, row, 0, head) +
         scalar_columns(job, row, from, job.cols);
}

// R rows, U groups of 16 columns a step (2·U accumulators a row: with one
// row and U = 1 the two FMA chains, not the memory, would set the pace).
template <int R, int U>
ENGINE_AVX2 void shift_block(const GemvJob &job, const float *xs, int64_t head,
                             int64_t r, const char *ahead) {
  const int64_t cols = job.cols, groups = (cols - head) / 16;
  const uint16_t *row = job.w + r * cols, *w = row + head;
  const __m256i high = _mm256_set1_epi32(int(0xffff0000u));
  __m256 even[R][U], odd[R][U];
  for (int a = 0; a < R; ++a)
    for (int u = 0; u < U; ++u)
      even[a][u] = odd[a][u] = _mm256_setzero_ps();
  auto group = [&](int64_t g, int u) ENGINE_AVX2 {
    const __m256 xe = _mm256_loadu_ps(xs + 16 * g);
    const __m256 xo = _mm256_loadu_ps(xs + 16 * g + 8);
    for (int a = 0; a < R; ++a) {
      const __m256i v = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(w + a * cols + 16 * g));
      even[a][u] = _mm256_fmadd_ps(
          _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)), xe, even[a][u]);
      odd[a][u] = _mm256_fmadd_ps(
          _mm256_castsi256_ps(_mm256_and_si256(v, high)), xo, odd[a][u]);
    }
  };
  int64_t g = 0;
  for (; g + U <= groups; g += U) {
    prefetch_step<R * 32 * U>(ahead, g / U);
    for (int u = 0; u < U; ++u)
      group(g + u, u);
  }
  for (; g < groups; ++g)
    group(g, 0);
  for (int a = 0; a < R; ++a) {
    __m256 sum = _mm256_add_ps(even[a][0], odd[a][0]);
    for (int u = 1; u < U; ++u)
      sum = _mm256_add_ps(sum, _mm256_add_ps(even[a][u], odd[a][u]));
    job.y[r + a] =
        hsum(sum) + ends(job, row + a * cols, head, head + groups * 16);
  }
}

template <int R, int U, int D, bool Align>
ENGINE_AVX2 void shift_rows(const GemvJob &job, int64_t r0, int64_t r1) {
  const int64_t head = head_columns(job, Align, 32);
  const float *xs = split_even_odd<16>(job, head);
  for_each_row_block<R, D>(
      job, r0, r1, [&](auto rows, int64_t r, const char *ahead) ENGINE_AVX2 {
        shift_block<decltype(rows)::value, U>(job, xs, head, r, ahead);
      });
}

template <int R, int U>
ENGINE_AVX2 void widen_block(const GemvJob &job, int64_t head, int64_t r,
                             const char *ahead) {
  const int64_t cols = job.cols, steps = (cols - head) / 8;
  const uint16_t *row = job.w + r * cols, *w = row + head;
  const float *x = job.x + head;
  __m256 acc[R][U];
  for (int a = 0; a < R; ++a)
    for (int u = 0; u < U; ++u)
      acc[a][u] = _mm256_setzero_ps();
  auto step = [&](int64_t s, int u) ENGINE_AVX2 {
    const __m256 xv = _mm256_loadu_ps(x + 8 * s);
    for (int a = 0; a < R; ++a)
      acc[a][u] =
          _mm256_fmadd_ps(load_bf16x8(w + a * cols + 8 * s), xv, acc[a][u]);
  };
  int64_t s = 0;
  for (; s + U <= steps; s += U) {
    prefetch_step<R * 16 * U>(ahead, s / U);
    for (int u = 0; u < U; ++u)
      step(s + u, u);
  }
  for (; s < steps; ++s)
    step(s, 0);
  for (int a = 0; a < R; ++a) {
    __m256 sum = acc[a][0];
    for (int u = 1; u < U; ++u)
      sum = _mm256_add_ps(sum, acc[a][u]);
    job.y[r + a] =
        hsum(sum) + ends(job, row + a * cols, head, head + steps * 8);
  }
}

template <int R, int U, int D, bool Align>
ENGINE_AVX2 void widen_rows(const GemvJob &job, int64_t r0, int64_t r1) {
  const int64_t head = head_columns(job, Align, 16);
  for_each_row_block<R, D>(
      job, r0, r1, [&](auto rows, int64_t r, const char *ahead) ENGINE_AVX2 {
        widen_block<decltype(rows)::value, U>(job, head, r, ahead);
      });
}

} // namespace

std::vector<GemvKernel> gemv_kernels_avx2() {
  // The first is the default (what the avx2 level ran before kernels were
  // chosen by measurement): two rows, the next block prefetched.
  return {
      {"avx2-r2u1-pf1", Isa::Avx2, shift_rows<2, 1, 1, false>},
      {"avx2-r2u1-pf0", Isa::Avx2, shift_rows<2, 1, 0, false>},
      {"avx2-r2u1-pf2", Isa::Avx2, shift_rows<2, 1, 2, false>},
      {"avx2-r2u2-pf1", Isa::Avx2, shift_rows<2, 2, 1, false>},
      {"avx2-r4u1-pf1", Isa::Avx2, shift_rows<4, 1, 1, false>},
      {"avx2-r1u2-pf1", Isa::Avx2, shift_rows<1, 2, 1, false>},
      {"avx2-r1u4-pf2", Isa::Avx2, shift_rows<1, 4, 2, false>},
      {"avx2-r2u1-pf1a", Isa::Avx2, shift_rows<2, 1, 1, true>},
      {"avx2-r2u2-pf1a", Isa::Avx2, shift_rows<2, 2, 1, true>},
      {"avx2-r1u4-pf1a", Isa::Avx2, shift_rows<1, 4, 1, true>},
      {"avx2w-r2u1-pf0", Isa::Avx2, widen_rows<2, 1, 0, false>},
      {"avx2w-r2u1-pf1", Isa::Avx2, widen_rows<2, 1, 1, false>},
      {"avx2w-r2u2-pf1", Isa::Avx2, widen_rows<2, 2, 1, false>},
      {"avx2w-r4u1-pf1", Isa::Avx2, widen_rows<4, 1, 1, false>},
      {"avx2w-r2u2-pf1a", Isa::Avx2, widen_rows<2, 2, 1, true>},
      {"avx2w-r4u1-pf1a", Isa::Avx2, widen_rows<4, 1, 1, true>},
  };
}

} // namespace engine::cpu_detail
