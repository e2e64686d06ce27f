// engine/cpu/gemv_plans.cpp - the list of gemv plans and running one (see
// gemv_kernels.h).
#include "engine/cpu/gemv_kernels.h"

#include <algorithm>
#include <atomic>

namespace engine {
namespace {

// Rows a thread takes from the shared counter at a time: large enough that
// the counter costs nothing next to streaming them (64 rows of 1024 bf16
// are 128 KiB), small enough that the threads end together.
constexpr int64_t kDynamicChunkRows = 64;

std::vector<GemvKernel> all_kernels() {
  std::vector<GemvKernel> k = cpu_detail::gemv_kernels_avx2();
  for (const GemvKernel &x : cpu_detail::gemv_kernels_avx512())
    k.push_back(x);
  return k;
}

} // namespace

const std::vector<GemvPlan> &all_gemv_plans() {
  static const std::vector<GemvKernel> kernels = all_kernels();
  static const std::vector<GemvPlan> plans = [] {
    std::vector<GemvPlan> p;
    for (const GemvKernel &k : kernels)
      for (bool dynamic : {false, true})
        p.push_back(
            {&k, dynamic, std::string(k.name) + (dynamic ? "-dyn" : "")});
    return p;
  }();
  return plans;
}

std::vector<const GemvPlan *> runnable_gemv_plans() {
  const Isa isa = active_isa();
  std::vector<const GemvPlan *> out;
  for (const GemvPlan &p : all_gemv_plans())
    if (p.kernel->isa <= isa)
      out.push_back(&p);
  return out;
}

const GemvPlan *find_gemv_plan(const std::string &name) {
  for (const GemvPlan &p : all_gemv_plans())
    if (p.name == name)
      return &p;
  return nullptr;
}

void run_gemv(ThreadPool &pool, const GemvPlan &plan, const GemvJob &job) {
  const auto rows = plan.kernel->rows;
  if (!plan.dynamic_split || pool.size() == 1) {
    pool.run([&](int t, int n) {
      Range r = split_range(job.rows, t, n, 16);
      if (r.size() > 0)
        rows(job, r.begin, r.end);
    });
    return;
  }
  std::atomic<int64_t> next{0};
  pool.run([&](int, int) {
    for (;;) {
      const int64_t r0 =
          next.fetch_add(kDynamicChunkRows, std::memory_order_relaxed);
      if (r0 >= job.rows)
        return;
      rows(job, r0, std::min(job.rows, r0 + kDynamicChunkRows));
    }
  });
}

} // namespace engine
