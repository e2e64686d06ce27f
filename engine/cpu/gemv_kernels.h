// engine/cpu/gemv_kernels.h - the candidate kernels for one activation row
// times a bf16 weight matrix: batch-1 decode's matrix-vector products.
//
// Batch-1 decode reads every weight once per token, so its speed is the rate
// at which one kernel streams memory, and which form streams fastest is the
// microarchitecture's: the vector width, vdpbf16ps against widening bf16 to
// fp32 for FMA, how many rows stream at once, how far ahead (if at all) to
// prefetch, and how rows are shared among threads. Each GemvPlan here is one
// such choice; gemv_tuning.h times them on a model's own weights and keeps
// the fastest for each shape, as FFTW's planner does.
#pragma once

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/thread_pool.h"

#include <cstdint>
#include <string>
#include <vector>

namespace engine {

/// One call: y[rows] = w[rows][cols] · x[cols], w bf16 (2-byte aligned), x
/// and y fp32.
struct GemvJob {
  const float *x = nullptr;
  const uint16_t *w = nullptr;
  int64_t rows = 0, cols = 0;
  float *y = nullptr;
};

/// A kernel for rows [r0, r1) of a job. Each prepares its own form of x (per
/// thread, O(cols)), so any subset of rows can go to any thread.
struct GemvKernel {
  const char *name; ///< e.g. "avx2-r2u1-pf1": form, rows at once, prefetch
  Isa isa;          ///< the lowest level that may run it
  void (*rows)(const GemvJob &job, int64_t r0, int64_t r1);
};

/// A kernel and how the rows are shared among the pool's threads: in equal
/// contiguous slices, or taken in chunks from a shared counter (a thread
/// slowed by its neighbours does less).
struct GemvPlan {
  const GemvKernel *kernel = nullptr;
  bool dynamic_split = false;
  std::string name; ///< the kernel's, with "-dyn" for the shared counter
};

/// Every plan this build has, whatever the CPU (kernels × splits), in a
/// fixed order; the pointers stay valid for the process's life.
const std::vector<GemvPlan> &all_gemv_plans();

/// The plans the active instruction-set level may run (active_isa()).
std::vector<const GemvPlan *> runnable_gemv_plans();

/// The plan named `name` (as GemvPlan::name spells it), or null.
const GemvPlan *find_gemv_plan(const std::string &name);

/// Runs job on the pool with the plan. The plan's level must be active.
void run_gemv(ThreadPool &pool, const GemvPlan &plan, const GemvJob &job);

namespace cpu_detail {
/// The kernels of each source file (gemv_avx2.cpp, gemv_avx512.cpp).
std::vector<GemvKernel> gemv_kernels_avx2();
std::vector<GemvKernel> gemv_kernels_avx512();
} // namespace cpu_detail

} // namespace engine
