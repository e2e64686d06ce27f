// engine/cpu/matmul_amx.cpp - bf16 weights times bf16 x on AMX tiles, the
// kernel for large batches (prefill).
//
// tdpbf16ps computes C[16][16] += A[16][32] · B[32][16] with B stored as
// pairs ("VNNI"): B row kk holds (b[2kk][n], b[2kk+1][n]) for each n. Taking
// Cᵀ = W·Xᵀ lets a 16-row slice of the row-major weight be the A tile,
// loaded in place with the row stride, so weights are never repacked; the
// B tile of Xᵀ in pair layout is exactly a 16×16 transpose of 32-bit words of
// the row-major bf16 x, built once per call by amx_pack(). Each result tile
// is turned around (transpose16x16) on its way to y.
#include "engine/cpu/amx_tiles.h"
#include "engine/cpu/matmul_kernels.h"
#include "engine/cpu/transpose16.h"

#include <immintrin.h>

#define ENGINE_AMX                                                             \
  __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,"         \
                        "avx512dq,avx512bf16,avx2,fma,f16c")))

namespace engine::cpu_detail {
namespace {

// c: a 16×16 tile of y transposed (weight rows × x rows); writes x rows
// [g·16, g·16 + valid) of y's columns [r, r + 16).
ENGINE_AMX void store_transposed(const float *c, float *y, int64_t ldy,
                                 int64_t r, int64_t x_row, int64_t valid) {
  __m512 v[16];
  for (int j = 0; j < 16; ++j)
    v[j] = _mm512_load_ps(c + 16 * j);
  transpose16x16(v);
  for (int n = 0; n < valid; ++n)
    _mm512_storeu_ps(y + (x_row + n) * ldy + r, v[n]);
}

ENGINE_AMX void pack(const uint16_t *xb, int64_t stride, int64_t m,
                     int64_t cols, int64_t g0, int64_t g1, uint32_t *xpack) {
  const int64_t kb_count = cols / 32;
  for (int64_t g = g0; g < g1; ++g)
    for (int64_t kb = 0; kb < kb_count; ++kb) {
      __m512 v[16];
      for (int n = 0; n < 16; ++n) {
        int64_t i = g * 16 + n;
        v[n] = i < m ? _mm512_loadu_ps(reinterpret_cast<const float *>(
                           xb + i * stride + kb * 32))
                     : _mm512_setzero_ps();
      }
      transpose16x16(v);
      float *dst = reinterpret_cast<float *>(xpack + (g * kb_count + kb) * 256);
      for (int kk = 0; kk < 16; ++kk)
        _mm512_store_ps(dst + 16 * kk, v[kk]);
    }
}

// Tiles 0-3: C (2×2 blocks of 16 weight rows × 16 x rows); 4, 5: A (weights);
// 6, 7: B (x), all full size (configure_full_tiles).
ENGINE_AMX void rows(const MatmulJob &job, int64_t r0, int64_t r1) {
  const int64_t cols = job.cols, kb_count = cols / 32;
  const int64_t groups = (job.m + 15) / 16;
  const int64_t lda = cols * 2; // bytes
  const uint16_t *w = static_cast<const uint16_t *>(job.w);
  alignas(64) float c[4][256];
  configure_full_tiles();
  for (int64_t r = r0; r < r1; r += 32) {
    const bool two_a = r + 32 <= r1;
    const uint16_t *a0 = w + r * cols, *a1 = a0 + 16 * cols;
    // No software prefetch of the next rows: it cost 8-10% of pp512 here
    // (701-718 against 773-780 tok/s with clang). GCC had been dropping it
    // all along (a function holding only prefetches counts as free of side
    // effects, so its calls were deleted), which is why GCC's build was the
    // faster one.
    for (int64_t g = 0; g < groups; g += 2) {
      const bool two_b = g + 2 <= groups;
      const uint32_t *b0 = job.xpack + g * kb_count * 256;
      const uint32_t *b1 = b0 + kb_count * 256;
      // Tile numbers must be literals, hence the four spelled-out shapes.
      if (two_a && two_b) {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
        for (int64_t kb = 0; kb < kb_count; ++kb) {
          _tile_loadd(4, a0 + kb * 32, lda);
          _tile_loadd(6, b0 + kb * 256, 64);
          _tile_dpbf16ps(0, 4, 6);
          _tile_loadd(7, b1 + kb * 256, 64);
          _tile_dpbf16ps(1, 4, 7);
          _tile_loadd(5, a1 + kb * 32, lda);
          _tile_dpbf16ps(2, 5, 6);
          _tile_dpbf16ps(3, 5, 7);
        }
        _tile_stored(0, c[0], 64);
        _tile_stored(1, c[1], 64);
        _tile_stored(2, c[2], 64);
        _tile_stored(3, c[3], 64);
      } else if (two_a) {
        _tile_zero(0);
        _tile_zero(2);
        for (int64_t kb = 0; kb < kb_count; ++kb) {
          _tile_loadd(4, a0 + kb * 32, lda);
          _tile_loadd(6, b0 + kb * 256, 64);
          _tile_dpbf16ps(0, 4, 6);
          _tile_loadd(5, a1 + kb * 32, lda);
          _tile_dpbf16ps(2, 5, 6);
        }
        _tile_stored(0, c[0], 64);
        _tile_stored(2, c[2], 64);
      } else if (two_b) {
        _tile_zero(0);
        _tile_zero(1);
        for (int64_t kb = 0; kb < kb_count; ++kb) {
          _tile_loadd(4, a0 + kb * 32, lda);
          _tile_loadd(6, b0 + kb * 256, 64);
          _tile_dpbf16ps(0, 4, 6);
          _tile_loadd(7, b1 + kb * 256, 64);
          _tile_dpbf16ps(1, 4, 7);
        }
        _tile_stored(0, c[0], 64);
        _tile_stored(1, c[1], 64);
      } else {
        _tile_zero(0);
        for (int64_t kb = 0; kb < kb_count; ++kb) {
          _tile_loadd(4, a0 + kb * 32, lda);
          _tile_loadd(6, b0 + kb * 256, 64);
          _tile_dpbf16ps(0, 4, 6);
        }
        _tile_stored(0, c[0], 64);
      }
      for (int a = 0; a < (two_a ? 2 : 1); ++a)
        for (int b = 0; b < (two_b ? 2 : 1); ++b) {
          int64_t x_row = (g + b) * 16;
          int64_t valid = job.m - x_row < 16 ? job.m - x_row : 16;
          store_transposed(c[2 * a + b], job.y, job.rows, r + 16 * a, x_row,
                           valid);
        }
    }
  }
  // Drop the tile state so context switches of this thread stay cheap.
  _tile_release();
}

} // namespace

int64_t amx_pack_size(int64_t m, int64_t cols) {
  return (m + 15) / 16 * (cols / 32) * 256;
}

void amx_pack(const uint16_t *xb, int64_t xb_stride, int64_t m, int64_t cols,
              int64_t g0, int64_t g1, uint32_t *xpack) {
  pack(xb, xb_stride, m, cols, g0, g1, xpack);
}

void matmul_rows_amx(const MatmulJob &job, int64_t r0, int64_t r1) {
  if (job.cols >= 32)
    rows(job, r0, r1);
  if (job.cols % 32 != 0)
    matmul_rows_avx512bf16(job, r0, r1, job.cols / 32 * 32, job.cols >= 32);
}

} // namespace engine::cpu_detail
