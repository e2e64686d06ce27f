// engine/cpu/machine_ceilings.cpp - the read bandwidth and peak arithmetic
// rate engine-bench judges its tests against (see machine_ceilings.h).
#include "engine/cpu/machine_ceilings.h"

#include "engine/cpu/bandwidth_sampler.h"
#include "engine/error.h"

#include <algorithm>
#include <chrono>
#include <immintrin.h>
#include <vector>

#define ENGINE_AVX2 __attribute__((target("avx2,fma")))
#define ENGINE_AVX512                                                          \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")))
#define ENGINE_AVX512BF16                                                      \
  __attribute__((                                                              \
      target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma")))

namespace engine {
namespace cpu_detail {
namespace {

// Eight (AVX2) or four (AVX-512) independent sums, 256 bytes a step: enough
// loads in flight that the memory, not the adds, sets the pace.
ENGINE_AVX2 double read_sum_avx2(const float *p, int64_t bytes) {
  __m256 a[8];
  for (auto &v : a)
    v = _mm256_setzero_ps();
  for (const float *end = p + bytes / 4; p < end; p += 64)
    for (int i = 0; i < 8; ++i)
      a[i] = _mm256_add_ps(a[i], _mm256_load_ps(p + 8 * i));
  for (int i = 1; i < 8; ++i)
    a[0] = _mm256_add_ps(a[0], a[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, a[0]);
  double s = 0;
  for (float x : lanes)
    s += x;
  return s;
}

ENGINE_AVX512 double read_sum_avx512(const float *p, int64_t bytes) {
  __m512 a[4];
  for (auto &v : a)
    v = _mm512_setzero_ps();
  for (const float *end = p + bytes / 4; p < end; p += 64)
    for (int i = 0; i < 4; ++i)
      a[i] = _mm512_add_ps(a[i], _mm512_load_ps(p + 16 * i));
  return double(_mm512_reduce_add_ps(
      _mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3]))));
}

// Eight float sums a chunk, added up in double between chunks: a float that
// has counted to 2^24 stops counting, and the pass's check is its count.
double read_sum_scalar(const float *p, int64_t bytes) {
  constexpr int64_t kChunk = 1 << 18; // floats: 2^15 per sum
  double s = 0;
  for (const float *end = p + bytes / 4; p < end;) {
    const float *stop = std::min(end, p + kChunk);
    float a[8] = {};
    for (; p < stop; p += 8)
      for (int i = 0; i < 8; ++i)
        a[i] += p[i];
    for (float x : a)
      s += x;
  }
  return s;
}

// Independent chains of multiply-adds, more than the FMA units' latency ×
// throughput, so the units never wait: the rate the kernels could reach
// with every operand in registers.
constexpr int kChains = 12;

ENGINE_AVX2 double peak_avx2(int64_t iterations, float *sink) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm256_set1_ps(float(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
  for (int64_t n = 0; n < iterations; ++n)
    for (auto &v : acc)
      v = _mm256_fmadd_ps(v, a, b);
  for (int i = 1; i < kChains; ++i)
    acc[0] = _mm256_add_ps(acc[0], acc[i]);
  *sink += _mm256_cvtss_f32(acc[0]);
  return double(iterations) * kChains * 8 * 2;
}

ENGINE_AVX512 double peak_avx512(int64_t iterations, float *sink) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps(float(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
  for (int64_t n = 0; n < iterations; ++n)
    for (auto &v : acc)
      v = _mm512_fmadd_ps(v, a, b);
  for (int i = 1; i < kChains; ++i)
    acc[0] = _mm512_add_ps(acc[0], acc[i]);
  *sink += _mm512_reduce_add_ps(acc[0]);
  return double(iterations) * kChains * 16 * 2;
}

// vdpbf16ps: 32 bf16 products summed pairwise into 16 fp32 lanes, 64
// floating-point operations an instruction.
ENGINE_AVX512BF16 double peak_avx512bf16(int64_t iterations, float *sink) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps(float(i));
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80); // 1.0
  const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3380); // 2^-24
  for (int64_t n = 0; n < iterations; ++n)
    for (auto &v : acc)
      v = _mm512_dpbf16_ps(v, a, b);
  for (int i = 1; i < kChains; ++i)
    acc[0] = _mm512_add_ps(acc[0], acc[i]);
  *sink += _mm512_reduce_add_ps(acc[0]);
  return double(iterations) * kChains * 32 * 2;
}

double peak_scalar(int64_t iterations, float *sink) {
  float acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = float(i);
  for (int64_t n = 0; n < iterations; ++n)
    for (auto &v : acc)
      v = v * 0.999999f + 1e-6f;
  for (int i = 1; i < kChains; ++i)
    acc[0] += acc[i];
  *sink += acc[0];
  return double(iterations) * kChains * 2;
}

const char *peak_name(Isa isa) {
  switch (isa) {
  case Isa::Scalar:
    return "scalar f32 multiply-add";
  case Isa::Avx2:
    return "avx2 vfmadd231ps (f32)";
  case Isa::Avx512:
    return "avx512 vfmadd231ps (f32)";
  case Isa::Avx512Bf16:
  case Isa::Amx:
    return "avx512bf16 vdpbf16ps (bf16 products, f32 sums)";
  }
  return "";
}
} // namespace

double read_sum(const float *data, int64_t bytes, Isa isa) {
  if (isa >= Isa::Avx512)
    return read_sum_avx512(data, bytes);
  if (isa == Isa::Avx2)
    return read_sum_avx2(data, bytes);
  return read_sum_scalar(data, bytes);
}

double peak_loop(Isa isa, int64_t iterations, float *sink) {
  switch (isa) {
  case Isa::Scalar:
    return peak_scalar(iterations, sink);
  case Isa::Avx2:
    return peak_avx2(iterations, sink);
  case Isa::Avx512:
    return peak_avx512(iterations, sink);
  case Isa::Avx512Bf16:
  case Isa::Amx:
    return peak_avx512bf16(iterations, sink);
  }
  return 0;
}
} // namespace cpu_detail

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}
} // namespace

MachineCeilings measure_machine_ceilings(ThreadPool &pool, Isa isa,
                                         int64_t buffer_bytes) {
  if (buffer_bytes < (int64_t(64) << 20))
    throw Error("engine: the bandwidth pass needs at least 64 MiB, got " +
                std::to_string(buffer_bytes) + " bytes");
  const int n = pool.size();
  MachineCeilings c;
  c.threads = n;
  c.peak_instruction = cpu_detail::peak_name(isa);
  c.peak_is_the_kernels = isa != Isa::Amx;

  // Each thread reads its own slice, first touched by that thread (so it
  // sits in the thread's NUMA node), several times the caches' size in all.
  // The memory is the kind the weights live in (2 MiB pages where the kernel
  // allows them): over 4 KiB pages the hardware prefetchers stop at every
  // page and the pass measures less than the weights can be read at.
  {
    BandwidthSampler passes(pool, isa, buffer_bytes);
    for (int pass = 0; pass < 5; ++pass) {
      const double rate = passes.sample();
      if (pass > 0) // the first pass warms the page tables and the threads
        c.read_bytes_per_s = std::max(c.read_bytes_per_s, rate);
    }
  }

  // Iterations for about 30 ms a thread, found on the calling thread.
  float sink = 0;
  int64_t iterations = 1 << 14;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    cpu_detail::peak_loop(isa, iterations, &sink);
    if (seconds_since(t0) > 0.01 || iterations > (int64_t(1) << 34))
      break;
    iterations *= 2;
  }
  iterations *= 3;
  std::vector<float> sinks(size_t(n), 0);
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<double> flops(size_t(n), 0);
    const auto t0 = std::chrono::steady_clock::now();
    pool.run([&](int t, int) {
      flops[size_t(t)] =
          cpu_detail::peak_loop(isa, iterations, &sinks[size_t(t)]);
    });
    const double s = seconds_since(t0);
    double total = 0;
    for (double f : flops)
      total += f;
    c.peak_flops = std::max(c.peak_flops, total / s);
  }
  // Keeps the loops' results alive without printing them.
  volatile float keep = sink;
  for (float s : sinks)
    keep = keep + s;
  return c;
}

} // namespace engine
