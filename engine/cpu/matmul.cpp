// engine/cpu/matmul.cpp - matmul(): argument checks, kernel choice, the bf16
// copies of x and the split of output rows across threads (see matmul.h).
#include "engine/cpu/matmul.h"

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/gemv_tuning.h"
#include "engine/cpu/matmul_kernels.h"
#include "engine/cpu/ops.h"
#include "engine/cpu/scratch_buffer.h"
#include "engine/error.h"

#include <perf/perf.h>

#include <algorithm>
#include <atomic>
#include <cblas.h>
#include <mutex>
#include <string>

namespace engine {
namespace {

using cpu_detail::MatmulJob;

// Measured with bench/engine/matmul_bench (batch_sweep): at m = 1 both bf16
// kernels stream weights equally fast; from m = 2 on AMX is ahead (at m = 16
// three times: 12.8 against 4.4 GB/s on one thread), as vdpbf16ps runs out of
// compute long before the weights run out of bandwidth.
constexpr int64_t kDefaultAmxMinBatch = 2;
// f32 weights: the engine's kernel matches OpenBLAS at m = 1 and beats it at
// m = 16 (57 against 42 GFLOP/s); OpenBLAS sgemm wins at m = 512 (140
// against 90). The switch sits between the two measured points.
constexpr int64_t kOpenBlasMinBatch = 64;
// x smaller than this (elements) is rounded to bf16 by the calling thread
// alone; a second parallel dispatch costs more than it saves.
constexpr int64_t kParallelConvertMin = 1 << 15;

std::atomic<int> f32_mode{int(F32Matmul::Auto)};
std::atomic<int64_t> amx_min_batch{kDefaultAmxMinBatch};

[[noreturn]] void fail(const std::string &what) {
  throw Error("matmul: " + what);
}

// OpenBLAS runs on our threads, one slice each, so it must not start its
// own.
void openblas_single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

void run_openblas(ThreadPool &pool, const MatmulJob &job) {
  openblas_single_threaded();
  pool.run([&](int t, int n) {
    Range rows = split_range(job.rows, t, n, 16);
    if (rows.size() == 0)
      return;
    const float *w = static_cast<const float *>(job.w) + rows.begin * job.cols;
    if (job.m == 1)
      cblas_sgemv(CblasRowMajor, CblasNoTrans, int(rows.size()), int(job.cols),
                  1.0f, w, int(job.cols), job.x, 1, 0.0f, job.y + rows.begin,
                  1);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(job.m),
                  int(rows.size()), int(job.cols), 1.0f, job.x, int(job.cols),
                  w, int(job.cols), 0.0f, job.y + rows.begin, int(job.rows));
  });
}

// Weights stored in 16 bits, many x rows, and no bf16 arithmetic in the CPU:
// each thread widens a block of its weight rows to fp32 (a few hundred KiB,
// in L2) and hands it to OpenBLAS sgemm, whose packed, register-blocked
// kernel keeps the FMA units busier than ours (pp512 on a Zen 3 without
// AVX-512: see matmul.h). The widening costs one pass over the weights per
// call, against the m·rows·cols multiply-adds.
constexpr int64_t kWidenBlockRows = 128;

void run_openblas_widened(ThreadPool &pool, const MatmulJob &job) {
  openblas_single_threaded();
  pool.run([&](int t, int n) {
    thread_local cpu_detail::ScratchBuffer block_buffer;
    Range rows = split_range(job.rows, t, n, 16);
    float *w32 = block_buffer.get<float>(size_t(kWidenBlockRows * job.cols));
    const size_t elem = dtype_size(job.dtype);
    for (int64_t r = rows.begin; r < rows.end; r += kWidenBlockRows) {
      const int64_t count = std::min(kWidenBlockRows, rows.end - r);
      convert_to_f32(job.dtype,
                     static_cast<const char *>(job.w) + r * job.cols * elem,
                     w32, count * job.cols);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(job.m),
                  int(count), int(job.cols), 1.0f, job.x, int(job.cols), w32,
                  int(job.cols), 0.0f, job.y + r, int(job.rows));
    }
  });
}

// A few x rows against bf16 weights at the avx2 level: x split once by the
// calling thread (16 rows of 1,024 columns take microseconds), then each
// thread its slice of the weight rows.
void run_avx2_bf16(ThreadPool &pool, const MatmulJob &job) {
  thread_local cpu_detail::ScratchBuffer split_buffer;
  float *xs = split_buffer.get<float>(
      size_t(job.m * cpu_detail::split_stride(job.cols)));
  cpu_detail::split_columns_avx2(job.x, job.m, job.cols, xs);
  pool.run([&](int t, int n) {
    Range r = split_range(job.rows, t, n, 16);
    if (r.size() > 0)
      cpu_detail::matmul_rows_avx2_bf16(job, xs, r.begin, r.end);
  });
}

void run_bf16(ThreadPool &pool, MatmulJob job, bool amx) {
  thread_local cpu_detail::ScratchBuffer xb_buffer, pack_buffer;
  const int64_t stride = (job.cols + 31) / 32 * 32;
  uint16_t *xb = xb_buffer.get<uint16_t>(size_t(job.m * stride));
  job.xb = xb;
  job.xb_stride = stride;
  const float *x = job.x;
  const int64_t m = job.m, cols = job.cols;

  if (amx) {
    uint32_t *xpack =
        pack_buffer.get<uint32_t>(size_t(cpu_detail::amx_pack_size(m, cols)));
    job.xpack = xpack;
    // Each thread rounds and packs whole 16-row groups, so the two steps
    // need no barrier between them; a single group (batched decode) is done
    // by the caller without a dispatch.
    const int64_t groups = (m + 15) / 16;
    auto prepare = [&](int t, int n) {
      Range g = split_range(groups, t, n);
      if (g.size() == 0)
        return;
      cpu_detail::convert_rows_bf16(x, cols, g.begin * 16,
                                    std::min(m, g.end * 16), xb, stride);
      cpu_detail::amx_pack(xb, stride, m, cols, g.begin, g.end, xpack);
    };
    if (groups == 1)
      prepare(0, 1);
    else
      pool.run(prepare);
    const int64_t rows16 = job.rows / 16 * 16;
    pool.run([&](int t, int n) {
      Range r = split_range(rows16, t, n, 32);
      if (r.size() > 0)
        cpu_detail::matmul_rows_amx(job, r.begin, r.end);
      if (t == n - 1 && rows16 < job.rows)
        cpu_detail::matmul_rows_avx512bf16(job, rows16, job.rows);
    });
    return;
  }

  if (m * cols < kParallelConvertMin) {
    cpu_detail::convert_rows_bf16(x, cols, 0, m, xb, stride);
  } else {
    pool.run([&](int t, int n) {
      Range i = split_range(m, t, n);
      cpu_detail::convert_rows_bf16(x, cols, i.begin, i.end, xb, stride);
    });
  }
  pool.run([&](int t, int n) {
    Range r = split_range(job.rows, t, n, 16);
    cpu_detail::matmul_rows_avx512bf16(job, r.begin, r.end);
  });
}

} // namespace

void set_f32_matmul(F32Matmul mode) { f32_mode.store(int(mode)); }

void set_amx_min_batch(int64_t m) {
  amx_min_batch.store(m > 0 ? m : kDefaultAmxMinBatch);
}

void matmul(ThreadPool &pool, const float *x, int64_t m, const WeightMatrix &w,
            float *y) {
  if (m < 0)
    fail("batch size " + std::to_string(m) + " is negative");
  if (w.rows < 1 || w.cols < 1)
    fail("weight shape [" + std::to_string(w.rows) + ", " +
         std::to_string(w.cols) + "] is empty");
  if (m == 0)
    return;
  if (!x || !y || !w.data)
    fail("null pointer for x, y or the weight data");
  // The work, for perf_work: the weights read once whatever m (split by
  // output rows), x read, y written; a multiply and an add per weight and
  // row.
  perf_work(uint64_t(w.rows) * w.cols * dtype_size(w.dtype) +
                uint64_t(m) * (w.rows + w.cols) * sizeof(float),
            2 * uint64_t(m) * w.rows * w.cols);

  MatmulJob job;
  job.x = x;
  job.m = m;
  job.dtype = w.dtype;
  job.w = w.data;
  job.rows = w.rows;
  job.cols = w.cols;
  job.y = y;

  const Isa isa = active_isa();
  // One row against bf16 weights: the plan measured fastest for this shape
  // (gemv_tuning.h), else the level's default plan. A level capped since the
  // measurement falls back to the default; the avx512bf16 and amx levels'
  // default is run_bf16 below, which rounds x to bf16 once for all threads.
  if (m == 1 && w.dtype == DType::BF16) {
    const GemvPlan *plan = w.gemv && w.gemv->kernel->isa <= isa ? w.gemv
                           : isa >= Isa::Avx2 && isa < Isa::Avx512Bf16
                               ? default_gemv_plan()
                               : nullptr;
    if (plan) {
      run_gemv(pool, *plan,
               {x, static_cast<const uint16_t *>(w.data), w.rows, w.cols, y});
      return;
    }
  }
  if (w.dtype == DType::BF16 && isa >= Isa::Avx512Bf16) {
    bool amx = isa == Isa::Amx && m >= amx_min_batch.load() && w.cols >= 32 &&
               w.rows >= 16;
    run_bf16(pool, job, amx);
    return;
  }
  {
    auto mode = F32Matmul(f32_mode.load());
    const bool blas = mode == F32Matmul::OpenBlas ||
                      (mode == F32Matmul::Auto && m >= kOpenBlasMinBatch);
    if (blas && w.dtype == DType::F32) {
      run_openblas(pool, job);
      return;
    }
    if (blas && m > 1) {
      run_openblas_widened(pool, job);
      return;
    }
  }
  if (w.dtype == DType::BF16 && isa == Isa::Avx2 &&
      m <= cpu_detail::kFewRowsMax) {
    run_avx2_bf16(pool, job);
    return;
  }
  void (*kernel)(const MatmulJob &, int64_t, int64_t) =
      isa >= Isa::Avx512 ? cpu_detail::matmul_rows_avx512
      : isa == Isa::Avx2 ? cpu_detail::matmul_rows_avx2
                         : cpu_detail::matmul_rows_scalar;
  pool.run([&](int t, int n) {
    Range r = split_range(job.rows, t, n, 16);
    if (r.size() > 0)
      kernel(job, r.begin, r.end);
  });
}

} // namespace engine
