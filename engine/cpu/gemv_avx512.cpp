// engine/cpu/gemv_avx512.cpp - the AVX-512 levels' gemv candidates.
//
// "avx512": 64-byte loads of 32 bf16 weights widened to fp32 as the avx2
// form does (even-numbered ones shifted up, odd ones masked), for CPUs with
// AVX-512 but no BF16. "bf16dp512" and "bf16dp256": vdpbf16ps on 512- and
// 256-bit vectors against x rounded to bf16 once per call (relative error
// about 1e-2 on long dot products, as the avx512bf16 matmul). Named as the
// avx2 forms (gemv_avx2.cpp): R rows at once, U steps a loop iteration
// (each with its own accumulators), the block D blocks ahead prefetched
// (D = 0: none).
#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/gemv_rows.h"

#include <immintrin.h>
#include <vector>

#define ENGINE_AVX512                                                          \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))
#define ENGINE_AVX512BF16                                                      \
  __attribute__((                                                              \
      target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

template <int R>
ENGINE_AVX512 void shift_block(const GemvJob &job, const float *xs, int64_t r,
                               const char *ahead) {
  const int64_t cols = job.cols, groups = cols / 32;
  const uint16_t *w = job.w + r * cols;
  const __m512i high = _mm512_set1_epi32(int(0xffff0000u));
  __m512 even[R], odd[R];
  for (int a = 0; a < R; ++a)
    even[a] = odd[a] = _mm512_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    const __m512 xe = _mm512_loadu_ps(xs + 32 * g);
    const __m512 xo = _mm512_loadu_ps(xs + 32 * g + 16);
    prefetch_step<R * 64>(ahead, g);
    for (int a = 0; a < R; ++a) {
      const __m512i v = _mm512_loadu_si512(w + a * cols + 32 * g);
      even[a] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)),
                                xe, even[a]);
      odd[a] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, high)),
                               xo, odd[a]);
    }
  }
  for (int a = 0; a < R; ++a)
    job.y[r + a] = _mm512_reduce_add_ps(_mm512_add_ps(even[a], odd[a])) +
                   scalar_columns(job, w + a * cols, groups * 32, cols);
}

template <int R, int D>
ENGINE_AVX512 void shift_rows(const GemvJob &job, int64_t r0, int64_t r1) {
  const float *xs = split_even_odd<32>(job, 0);
  for_each_row_block<R, D>(
      job, r0, r1, [&](auto rows, int64_t r, const char *ahead) ENGINE_AVX512 {
        shift_block<decltype(rows)::value>(job, xs, r, ahead);
      });
}

// x rounded to bf16 (nearest even), zero-padded to a multiple of 32.
ENGINE_AVX512BF16 const uint16_t *round_x(const GemvJob &job) {
  thread_local std::vector<uint16_t> xb;
  const int64_t stride = (job.cols + 31) / 32 * 32;
  xb.resize(size_t(stride));
  for (int64_t k = 0; k < stride; k += 32) {
    const int64_t left = job.cols - k;
    const __mmask16 lo = left >= 16 ? 0xffff
                         : left > 0 ? __mmask16((1u << left) - 1)
                                    : 0;
    const __mmask16 hi = left >= 32  ? 0xffff
                         : left > 16 ? __mmask16((1u << (left - 16)) - 1)
                                     : 0;
    const __m512 a = _mm512_maskz_loadu_ps(lo, job.x + k);
    const __m512 b = _mm512_maskz_loadu_ps(hi, job.x + k + 16);
    _mm512_storeu_si512(xb.data() + k, (__m512i)_mm512_cvtne2ps_pbh(b, a));
  }
  return xb.data();
}

// R rows, U steps of 32 columns a loop iteration, each with its own
// accumulators: one row (R = 1) reads the thread's rows as one sequential
// stream, which a CPU's hardware prefetchers may follow better than R
// streams a row apart; its U chains hide vdpbf16ps's latency.
template <int R, int U>
ENGINE_AVX512BF16 void dp512_block(const GemvJob &job, const uint16_t *xb,
                                   int64_t r, const char *ahead) {
  const int64_t cols = job.cols, steps = cols / 32;
  const uint16_t *w = job.w + r * cols;
  __m512 acc[R][U];
  for (int a = 0; a < R; ++a)
    for (int u = 0; u < U; ++u)
      acc[a][u] = _mm512_setzero_ps();
  auto step = [&](int64_t s, int u) ENGINE_AVX512BF16 {
    const __m512i xv = _mm512_loadu_si512(xb + 32 * s);
    for (int a = 0; a < R; ++a)
      acc[a][u] = _mm512_dpbf16_ps(
          acc[a][u], (__m512bh)_mm512_loadu_si512(w + a * cols + 32 * s),
          (__m512bh)xv);
  };
  int64_t s = 0;
  for (; s + U <= steps; s += U) {
    prefetch_step<R * 64 * U>(ahead, s / U);
    for (int u = 0; u < U; ++u)
      step(s + u, u);
  }
  for (; s < steps; ++s)
    step(s, 0);
  if (steps * 32 < cols) {
    const __mmask32 mask = __mmask32((1ull << (cols - steps * 32)) - 1);
    const __m512i xv = _mm512_loadu_si512(xb + 32 * steps);
    for (int a = 0; a < R; ++a)
      acc[a][0] = _mm512_dpbf16_ps(
          acc[a][0],
          (__m512bh)_mm512_maskz_loadu_epi16(mask, w + a * cols + 32 * steps),
          (__m512bh)xv);
  }
  for (int a = 0; a < R; ++a) {
    __m512 sum = acc[a][0];
    for (int u = 1; u < U; ++u)
      sum = _mm512_add_ps(sum, acc[a][u]);
    job.y[r + a] = _mm512_reduce_add_ps(sum);
  }
}

template <int R, int U, int D>
ENGINE_AVX512BF16 void dp512_rows(const GemvJob &job, int64_t r0, int64_t r1) {
  const uint16_t *xb = round_x(job);
  for_each_row_block<R, D>(
      job, r0, r1,
      [&](auto rows, int64_t r, const char *ahead) ENGINE_AVX512BF16 {
        dp512_block<decltype(rows)::value, U>(job, xb, r, ahead);
      });
}

ENGINE_AVX512BF16 inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

template <int R>
ENGINE_AVX512BF16 void dp256_block(const GemvJob &job, const uint16_t *xb,
                                   int64_t r, const char *ahead) {
  const int64_t cols = job.cols, steps = cols / 16;
  const uint16_t *w = job.w + r * cols;
  __m256 acc[R];
  for (int a = 0; a < R; ++a)
    acc[a] = _mm256_setzero_ps();
  for (int64_t s = 0; s < steps; ++s) {
    const __m256i xv =
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(xb + 16 * s));
    prefetch_step<R * 32>(ahead, s);
    for (int a = 0; a < R; ++a)
      acc[a] = _mm256_dpbf16_ps(
          acc[a],
          (__m256bh)_mm256_loadu_si256(
              reinterpret_cast<const __m256i *>(w + a * cols + 16 * s)),
          (__m256bh)xv);
  }
  if (steps * 16 < cols) {
    const __mmask16 mask = __mmask16((1u << (cols - steps * 16)) - 1);
    const __m256i xv =
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(xb + 16 * steps));
    for (int a = 0; a < R; ++a)
      acc[a] = _mm256_dpbf16_ps(
          acc[a],
          (__m256bh)_mm256_maskz_loadu_epi16(mask, w + a * cols + 16 * steps),
          (__m256bh)xv);
  }
  for (int a = 0; a < R; ++a)
    job.y[r + a] = hsum256(acc[a]);
}

template <int R, int D>
ENGINE_AVX512BF16 void dp256_rows(const GemvJob &job, int64_t r0, int64_t r1) {
  const uint16_t *xb = round_x(job);
  for_each_row_block<R, D>(
      job, r0, r1,
      [&](auto rows, int64_t r, const char *ahead) ENGINE_AVX512BF16 {
        dp256_block<decltype(rows)::value>(job, xb, r, ahead);
      });
}

} // namespace

std::vector<GemvKernel> gemv_kernels_avx512() {
  // Each level's default is default_gemv_plan()'s (gemv_tuning.cpp).
  return {
      {"bf16dp512-r8u1-pf1", Isa::Avx512Bf16, dp512_rows<8, 1, 1>},
      {"bf16dp512-r8u1-pf0", Isa::Avx512Bf16, dp512_rows<8, 1, 0>},
      {"bf16dp512-r4u1-pf0", Isa::Avx512Bf16, dp512_rows<4, 1, 0>},
      {"bf16dp512-r4u1-pf1", Isa::Avx512Bf16, dp512_rows<4, 1, 1>},
      {"bf16dp512-r8u1-pf2", Isa::Avx512Bf16, dp512_rows<8, 1, 2>},
      {"bf16dp512-r1u2-pf0", Isa::Avx512Bf16, dp512_rows<1, 2, 0>},
      {"bf16dp512-r1u2-pf1", Isa::Avx512Bf16, dp512_rows<1, 2, 1>},
      {"bf16dp512-r1u1-pf0", Isa::Avx512Bf16, dp512_rows<1, 1, 0>},
      {"bf16dp512-r1u4-pf0", Isa::Avx512Bf16, dp512_rows<1, 4, 0>},
      {"bf16dp512-r2u2-pf0", Isa::Avx512Bf16, dp512_rows<2, 2, 0>},
      {"bf16dp256-r4u1-pf1", Isa::Avx512Bf16, dp256_rows<4, 1>},
      {"bf16dp256-r8u1-pf1", Isa::Avx512Bf16, dp256_rows<8, 1>},
      {"avx512-r2u1-pf1", Isa::Avx512, shift_rows<2, 1>},
      {"avx512-r2u1-pf0", Isa::Avx512, shift_rows<2, 0>},
      {"avx512-r4u1-pf0", Isa::Avx512, shift_rows<4, 0>},
      {"avx512-r4u1-pf1", Isa::Avx512, shift_rows<4, 1>},
  };
}

} // namespace engine::cpu_detail
