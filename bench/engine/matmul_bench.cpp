// bench/engine/matmul_bench.cpp - matmul throughput on the Qwen3-0.6B shapes
// for every instruction-set level, next to the machine's streaming-read
// bandwidth and OpenBLAS sgemm.
//
// Decode (m = 1) is bound by how fast weights stream from memory, so every
// iteration multiplies a different copy of the weight, taken in turn from a
// 2 GiB pool (ENGINE_BENCH_POOL_MB) that no cache holds; GB/s counts weight
// bytes, GFLOP/s 2·m·rows·cols. Threads: ENGINE_BENCH_THREADS (default 2).
// ENGINE_BENCH_POOL_FILE takes the pool from a file mapping instead, as the
// engine takes a model's weights. ENGINE_BENCH_GEMV=PLAN runs one row (m = 1)
// with that gemv plan (gemv_kernels.h), as `--kernels PLAN` does the engine.
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/matmul.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <immintrin.h>
#include <memory>
#include <random>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace engine;

// Far larger than the last-level cache (480 MiB reported here), whose
// replacement policy keeps part of a cyclic working set that is only a few
// times its size.
size_t pool_bytes() {
  static const size_t bytes = [] {
    const char *v = std::getenv("ENGINE_BENCH_POOL_MB");
    return size_t(v && *v ? std::atoll(v) : 2048) << 20;
  }();
  return bytes;
}

int bench_threads() {
  const char *v = std::getenv("ENGINE_BENCH_THREADS");
  return v && *v ? std::atoi(v) : 2;
}

ThreadPool &pool() {
  static ThreadPool p(bench_threads());
  return p;
}

// Every 16-bit word is 0x3cXX: a small number read as bf16, f16 or (in pairs)
// f32, so all three types can be cut from the same memory.
void fill_weights(uint8_t *p, size_t bytes) {
  uint16_t *w = reinterpret_cast<uint16_t *>(p);
  for (size_t i = 0; i < bytes / 2; ++i)
    w[i] = uint16_t(0x3c00 | ((uint32_t(i) * 2654435761u) >> 24));
}

// ENGINE_BENCH_POOL_FILE=PATH: the pool is that file (written once),
// mapped read-only as the engine maps a model, so the weights sit in the
// page cache's pages rather than in huge pages of anonymous memory.
uint8_t *file_pool(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT, 0644);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::perror(path);
    std::exit(2);
  }
  if (size_t(st.st_size) != pool_bytes()) {
    std::vector<uint8_t> block(64 << 20);
    fill_weights(block.data(), block.size());
    if (ftruncate(fd, 0) != 0) {
      std::perror(path);
      std::exit(2);
    }
    for (size_t done = 0; done < pool_bytes(); done += block.size())
      if (write(fd, block.data(), std::min(block.size(), pool_bytes() - done)) <
          0) {
        std::perror(path);
        std::exit(2);
      }
  }
  void *p =
      mmap(nullptr, pool_bytes(), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    std::perror(path);
    std::exit(2);
  }
  return static_cast<uint8_t *>(p);
}

const uint8_t *weight_pool() {
  static uint8_t *data = [] {
    if (const char *path = std::getenv("ENGINE_BENCH_POOL_FILE"); path && *path)
      return file_pool(path);
    // Huge pages: faulting in 2 GiB of small pages takes many seconds.
    auto *p = static_cast<uint8_t *>(std::aligned_alloc(2 << 20, pool_bytes()));
    madvise(p, pool_bytes(), MADV_HUGEPAGE);
    fill_weights(p, pool_bytes());
    return p;
  }();
  return data;
}

struct Shape {
  const char *name;
  int64_t rows, cols;
};
// Qwen3-0.6B: hidden 1024, 16 q heads and 8 kv heads of 128, intermediate
// 3072, vocabulary 151936; q/k/v and gate/up fused as in Nano-vLLM.
const Shape kShapes[] = {{"qkv", 4096, 1024},
                         {"o", 1024, 2048},
                         {"gate_up", 6144, 1024},
                         {"down", 1024, 3072},
                         {"lm_head", 151936, 1024}};

// Cycles through copies of the weight so that each iteration reads memory.
class WeightCycle {
public:
  WeightCycle(DType dtype, const Shape &s)
      : w_{dtype, s.rows, s.cols, nullptr} {
    bytes_ = size_t(s.rows * s.cols) * dtype_size(dtype);
    copies_ = pool_bytes() / bytes_;
    // ENGINE_BENCH_GEMV=PLAN: one row runs that plan, as --kernels PLAN
    // makes the engine run it (else the level's default).
    if (const char *plan = std::getenv("ENGINE_BENCH_GEMV"); plan && *plan) {
      w_.gemv = find_gemv_plan(plan);
      if (!w_.gemv) {
        std::fprintf(stderr, "ENGINE_BENCH_GEMV=%s: no such plan\n", plan);
        std::exit(2);
      }
    }
    // Filled here, before any timing: the first benchmark of a filtered
    // run would otherwise time filling 2 GiB.
    weight_pool();
  }
  const WeightMatrix &next() {
    w_.data = weight_pool() + (next_++ % copies_) * bytes_;
    return w_;
  }
  size_t bytes() const { return bytes_; }

private:
  WeightMatrix w_;
  size_t bytes_, copies_, next_ = 0;
};

void set_counters(benchmark::State &state, double bytes, double flops) {
  state.counters["GB/s"] = benchmark::Counter(
      bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void bm_matmul(benchmark::State &state, Isa isa, DType dtype, Shape shape,
               int64_t m, F32Matmul f32, int64_t amx_min_batch = 0) {
  set_isa_cap(isa);
  set_f32_matmul(f32);
  set_amx_min_batch(amx_min_batch);
  WeightCycle cycle(dtype, shape);
  std::vector<float> x(size_t(m * shape.cols), 0.5f);
  std::vector<float> y(size_t(m * shape.rows));
  for (auto _ : state) {
    matmul(pool(), x.data(), m, cycle.next(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  set_counters(state, double(cycle.bytes()),
               2.0 * double(m) * double(shape.rows) * double(shape.cols));
  set_f32_matmul(F32Matmul::Auto);
  set_amx_min_batch(0);
  clear_isa_cap();
}

// OpenBLAS on its own: one sgemm call with OpenBLAS's threads, the way a
// program would call it without the engine's pool.
void bm_openblas_sgemm(benchmark::State &state, Shape shape, int64_t m) {
  openblas_set_num_threads(bench_threads());
  WeightCycle cycle(DType::F32, shape);
  std::vector<float> x(size_t(m * shape.cols), 0.5f);
  std::vector<float> y(size_t(m * shape.rows));
  for (auto _ : state) {
    const float *w = static_cast<const float *>(cycle.next().data);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(m),
                int(shape.rows), int(shape.cols), 1.0f, x.data(),
                int(shape.cols), w, int(shape.cols), 0.0f, y.data(),
                int(shape.rows));
    benchmark::DoNotOptimize(y.data());
  }
  set_counters(state, double(cycle.bytes()),
               2.0 * double(m) * double(shape.rows) * double(shape.cols));
  openblas_set_num_threads(1);
}

__attribute__((target("avx512f"))) uint64_t read_avx512(const uint8_t *p,
                                                        size_t n) {
  __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
  for (size_t i = 0; i < n; i += 256) {
    a = _mm512_xor_si512(a, _mm512_load_si512(p + i));
    b = _mm512_xor_si512(b, _mm512_load_si512(p + i + 64));
    c = _mm512_xor_si512(c, _mm512_load_si512(p + i + 128));
    d = _mm512_xor_si512(d, _mm512_load_si512(p + i + 192));
  }
  a = _mm512_xor_si512(_mm512_xor_si512(a, b), _mm512_xor_si512(c, d));
  return uint64_t(_mm512_reduce_or_epi64(a));
}

// The machine's read bandwidth: every thread streams its share of 256 MiB,
// taken in turn from the pool.
void bm_stream_read(benchmark::State &state) {
  const uint8_t *p = weight_pool();
  const size_t chunk = 256 << 20; // per iteration, split across threads
  size_t offset = 0;
  uint64_t sink = 0;
  for (auto _ : state) {
    const uint8_t *base = p + offset;
    pool().run([&](int t, int n) {
      Range r = split_range(int64_t(chunk), t, n, 4096);
      uint64_t v = read_avx512(base + r.begin, size_t(r.size()));
      if (t == 0)
        sink += v;
    });
    offset = (offset + chunk) % pool_bytes();
  }
  benchmark::DoNotOptimize(sink);
  set_counters(state, double(chunk), 0);
}

void register_all() {
  benchmark::RegisterBenchmark("stream_read", bm_stream_read)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  const Isa top = max_supported_isa();
  for (Isa isa :
       {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx}) {
    if (int(isa) > int(top))
      continue;
    for (const Shape &s : kShapes)
      for (int64_t m : {1, 16, 512}) {
        // The scalar level is only a fallback; a 512-row LM head at that
        // level takes minutes.
        if (s.rows > 100000 && (m > 16 || isa == Isa::Scalar))
          continue;
        std::string name = "matmul_bf16/" + std::string(isa_name(isa)) + "/" +
                           s.name + "/m:" + std::to_string(m);
        benchmark::RegisterBenchmark(name.c_str(), bm_matmul, isa, DType::BF16,
                                     s, m, F32Matmul::Auto, 0)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
  }
  // Small batches (batched decode) with vdpbf16ps, and with AMX where
  // there is: where AMX starts to pay.
  if (top >= Isa::Avx512Bf16)
    for (int64_t m : {1, 2, 4, 8, 16, 32, 64})
      for (const Shape &s : {kShapes[0], kShapes[3]}) {
        std::string suffix = std::string(s.name) + "/m:" + std::to_string(m);
        benchmark::RegisterBenchmark(
            ("batch_sweep/avx512bf16/" + suffix).c_str(), bm_matmul,
            Isa::Avx512Bf16, DType::BF16, s, m, F32Matmul::Auto, 0)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
        if (top != Isa::Amx)
          continue;
        benchmark::RegisterBenchmark(("batch_sweep/amx/" + suffix).c_str(),
                                     bm_matmul, Isa::Amx, DType::BF16, s, m,
                                     F32Matmul::Auto, 1)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
  // Batched decode's sizes at the avx2 level: its bf16 kernel for a few x
  // rows (matmul_avx2_bf16.cpp) up to kFewRowsMax, the general one past it
  // up to the OpenBLAS switch (where the two cross).
  if (top >= Isa::Avx2)
    for (int64_t m : {2, 4, 8, 32, 48, 63})
      for (const Shape &s : {kShapes[0], kShapes[3]}) {
        std::string name = "batch_sweep/avx2/" + std::string(s.name) +
                           "/m:" + std::to_string(m);
        benchmark::RegisterBenchmark(name.c_str(), bm_matmul, Isa::Avx2,
                                     DType::BF16, s, m, F32Matmul::Auto, 0)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
  // bf16 weights widened block by block into OpenBLAS sgemm (the path
  // below the avx512bf16 level from kOpenBlasMinBatch rows on), at a few m.
  if (top < Isa::Avx512Bf16)
    for (const Shape &s : kShapes)
      for (int64_t m : {4, 16, 64}) {
        if (s.rows > 100000)
          continue;
        std::string name = "matmul_bf16_openblas/" + std::string(s.name) +
                           "/m:" + std::to_string(m);
        benchmark::RegisterBenchmark(name.c_str(), bm_matmul, top, DType::BF16,
                                     s, m, F32Matmul::OpenBlas, 0)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
  for (const Shape &s : kShapes) {
    if (s.rows > 100000)
      continue;
    for (int64_t m : {1, 16, 512}) {
      std::string suffix = std::string(s.name) + "/m:" + std::to_string(m);
      benchmark::RegisterBenchmark(("matmul_f16/" + suffix).c_str(), bm_matmul,
                                   top, DType::F16, s, m, F32Matmul::Auto, 0)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("matmul_f32_own/" + suffix).c_str(),
                                   bm_matmul, top, DType::F32, s, m,
                                   F32Matmul::Own, 0)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("matmul_f32_openblas/" + suffix).c_str(),
                                   bm_matmul, top, DType::F32, s, m,
                                   F32Matmul::OpenBlas, 0)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("openblas_sgemm/" + suffix).c_str(),
                                   bm_openblas_sgemm, s, m)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  std::fprintf(stderr, "%s\n", cpu_description(pool().size()).c_str());
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
