// engine/cpu/gemv_tuning.cpp - measuring the gemv plans on a model's weights
// (see gemv_tuning.h).
#include "engine/cpu/gemv_tuning.h"

#include "engine/cpu/gemv_wisdom.h"
#include "engine/cpu/host_load.h"
#include "engine/error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <immintrin.h>
#include <map>
#include <optional>
#include <set>
#include <sys/mman.h>
#include <unistd.h>

namespace engine {
namespace {

using Clock = std::chrono::steady_clock;

// A timed sample streams at least this much: long enough that a timer read
// and a dispatch are noise (0.4-1 ms here), short enough that the budget
// holds a few dozen samples a shape.
constexpr int64_t kSampleBytes = 8 << 20;
// Calls are on row slices of at most this much, so that even a 300 MB
// vocabulary head is timed in pieces the budget can afford.
constexpr int64_t kWindowBytes = 4 << 20;
// A plan must stream faster than the default by more than this in the final
// round to replace it: smaller differences are within a VM's run-to-run noise,
// and the default is the plan the golden tests have run longest.
constexpr double kNoiseGuard = 0.02;
constexpr int kFinalPairs = 4;
// When the budget runs out before the final round, a plan replaces the
// default only if its best early sample beat the default's by this much:
// early samples are single and not taken in alternation, but the default
// at m = 1 can stream at half the rate of the best plan (Zen 4, 2 threads:
// 16-18 GB/s against 29-40), which no noise explains.
constexpr double kPartialGuard = 0.10;

// Maps the pages of [p, p + bytes) now. Weights are memory-mapped from the
// checkpoint and, before the first forward pass, not yet mapped: timed
// calls would measure page faults, not the kernels. The first forward pass
// would take the same faults, so this moves work rather than adding it.
void populate(const void *p, int64_t bytes) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = uintptr_t(p) / page * page;
  const uintptr_t end = uintptr_t(p) + uintptr_t(bytes);
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 // Linux 5.14
#endif
  if (madvise(reinterpret_cast<void *>(begin), end - begin,
              MADV_POPULATE_READ) == 0)
    return;
  // Older kernels: touch a byte of every page.
  uint8_t sum = 0;
  for (uintptr_t a = begin; a < end; a += page)
    sum += *reinterpret_cast<const volatile uint8_t *>(
        a < uintptr_t(p) ? uintptr_t(p) : a);
  (void)sum;
}

// Evicts [p, p + bytes) from every cache level.
void flush(const void *p, int64_t bytes) {
  const char *c = static_cast<const char *>(p);
  for (int64_t i = 0; i < bytes; i += 64)
    _mm_clflush(c + i);
  _mm_clflush(c + bytes - 1);
  _mm_mfence();
}

struct Window {
  const uint16_t *w;
  int64_t rows;
};

// Streams one shape's matrices with any plan, in row windows, cycling, and
// times samples of kSampleBytes.
class ShapeTimer {
public:
  ShapeTimer(ThreadPool &pool, int64_t cols,
             const std::vector<const WeightMatrix *> &matrices)
      : pool_(pool), cols_(cols), x_(size_t(cols)) {
    int64_t max_rows = 0;
    const int64_t window_rows =
        std::max<int64_t>(16, kWindowBytes / (cols * 2) / 16 * 16);
    for (const WeightMatrix *m : matrices) {
      for (int64_t r = 0; r < m->rows; r += window_rows) {
        const int64_t rows = std::min(window_rows, m->rows - r);
        windows_.push_back(
            {static_cast<const uint16_t *>(m->data) + r * cols, rows});
        max_rows = std::max(max_rows, rows);
      }
    }
    y_.resize(size_t(max_rows));
    // A cyclic working set a few times the last-level cache can partly stay
    // in it; then each window leaves the caches after its timed call, as the
    // rest of the model would push it out in decode.
    flush_after_use_ = int64_t(matrices.size()) * matrices[0]->rows * cols * 2 <
                       2 * last_level_cache_bytes();
    // Activations of a typical size and sign mix; the values do not change
    // the speed, only keep the work from being optimized away.
    for (int64_t k = 0; k < cols; ++k)
      x_[size_t(k)] = float((k * 37) % 17) / 17.0f - 0.5f;
  }

  // Bytes a second of one sample.
  double sample(const GemvPlan &plan) {
    if (warmed_.insert(&plan).second) {
      // The plan's first call grows its thread-local x buffers.
      const Window &w = windows_[0];
      run_gemv(
          pool_, plan,
          {x_.data(), w.w, std::min<int64_t>(w.rows, 16), cols_, y_.data()});
    }
    int64_t bytes = 0;
    Clock::duration spent{};
    while (bytes < kSampleBytes) {
      const Window &w = windows_[next_++ % windows_.size()];
      const auto t0 = Clock::now();
      run_gemv(pool_, plan, {x_.data(), w.w, w.rows, cols_, y_.data()});
      spent += Clock::now() - t0;
      bytes += w.rows * cols_ * 2;
      if (flush_after_use_)
        flush(w.w, w.rows * cols_ * 2);
    }
    const double s = std::chrono::duration<double>(spent).count();
    return double(bytes) / s;
  }

private:
  ThreadPool &pool_;
  int64_t cols_;
  std::vector<Window> windows_;
  size_t next_ = 0;
  std::vector<float> x_, y_;
  std::set<const GemvPlan *> warmed_;
  bool flush_after_use_ = false;
};

struct Measured {
  const GemvPlan *plan = nullptr; ///< null: nothing beat the default yet
  double gb_s = 0, default_gb_s = 0, seconds = 0;
  bool complete = false; ///< every round ran; else `plan` is a best guess
};

// Successive halving over the level's plans with an even split, then the
// two finalists and the default in alternation, then the winner's split.
Measured measure_rounds(ThreadPool &pool, ShapeTimer &timer,
                        const GemvPlan &default_plan,
                        Clock::time_point deadline) {
  // The default first: a budget that runs out early can then still compare
  // what it measured with it.
  std::vector<const GemvPlan *> alive = {&default_plan};
  for (const GemvPlan *p : runnable_gemv_plans())
    if (!p->dynamic_split && p != &default_plan)
      alive.push_back(p);
  std::map<const GemvPlan *, double> best;
  auto out_of_time = [&] { return Clock::now() >= deadline; };
  Measured m;
  // Out of time: the best plan so far, where the default was measured
  // beside it and it beat the default clearly (kPartialGuard).
  auto best_so_far = [&] {
    const auto d = best.find(&default_plan);
    if (d == best.end())
      return m;
    auto top = std::max_element(best.begin(), best.end(), [](auto a, auto b) {
      return a.second < b.second;
    });
    if (top->second > d->second * (1 + kPartialGuard)) {
      m.plan = top->first;
      m.gb_s = top->second / 1e9;
      m.default_gb_s = d->second / 1e9;
    }
    return m;
  };
  // Each round takes its samples plan after plan, again and again, so that a
  // slow spell of the machine falls on all of them; a plan's score is its
  // best sample (interference only ever slows a stream down). The first
  // round, one sample each, keeps four; the second, two more, keeps two.
  for (auto [samples, keep] : {std::pair<int, size_t>{1, 4}, {2, 2}}) {
    if (alive.size() <= 1)
      break;
    for (int i = 0; i < samples; ++i)
      for (const GemvPlan *p : alive) {
        if (out_of_time())
          return best_so_far();
        best[p] = std::max(best[p], timer.sample(*p));
      }
    std::sort(alive.begin(), alive.end(),
              [&](auto *a, auto *b) { return best[a] > best[b]; });
    alive.resize(std::min(alive.size(), keep));
  }
  // The final round: fresh samples, the two finalists and the default
  // taking turns, so all see the same machine. Two finalists, not one: a
  // slow spell during the winner's earlier samples could otherwise keep a
  // plan a tenth slower than the runner-up (seen on a busy VM host).
  std::vector<const GemvPlan *> final_plans = alive;
  if (std::find(final_plans.begin(), final_plans.end(), &default_plan) ==
      final_plans.end())
    final_plans.push_back(&default_plan);
  std::map<const GemvPlan *, std::vector<double>> samples;
  for (int i = 0; i < kFinalPairs; ++i)
    for (const GemvPlan *p : final_plans) {
      if (out_of_time())
        return best_so_far();
      samples[p].push_back(timer.sample(*p));
      best[p] = std::max(best[p], samples[p].back());
    }
  auto best_of = [&](const GemvPlan *p) {
    return *std::max_element(samples[p].begin(), samples[p].end());
  };
  const GemvPlan *winner = alive[0];
  for (const GemvPlan *p : alive)
    if (best_of(p) > best_of(winner))
      winner = p;
  double w_rate = best_of(winner), d_rate = best_of(&default_plan);
  if (w_rate < d_rate * (1 + kNoiseGuard)) {
    winner = &default_plan;
    w_rate = d_rate;
  }
  // Rows from a shared counter instead of equal slices.
  if (pool.size() > 1) {
    const GemvPlan *dynamic =
        find_gemv_plan(std::string(winner->kernel->name) + "-dyn");
    double dyn_rate = 0, even_rate = 0;
    for (int i = 0; i < kFinalPairs / 2; ++i) {
      if (out_of_time()) {
        // The final round's winner stands, split evenly.
        m.plan = winner;
        m.gb_s = w_rate / 1e9;
        m.default_gb_s = d_rate / 1e9;
        return m;
      }
      even_rate = std::max(even_rate, timer.sample(*winner));
      dyn_rate = std::max(dyn_rate, timer.sample(*dynamic));
    }
    if (dyn_rate > even_rate * (1 + kNoiseGuard)) {
      w_rate = w_rate * dyn_rate / even_rate;
      winner = dynamic;
    }
  }
  m.plan = winner;
  m.gb_s = w_rate / 1e9;
  m.default_gb_s = d_rate / 1e9;
  m.complete = true;
  return m;
}

// Measures one shape within what is left of the budget, and charges it.
Measured measure_shape(ThreadPool &pool, int64_t cols,
                       const std::vector<const WeightMatrix *> &matrices,
                       const GemvPlan &default_plan, Clock::duration *left) {
  ShapeTimer timer(pool, cols, matrices);
  // Mapping the pages (in the timer) is not measurement: see populate().
  const Clock::time_point start = Clock::now();
  Measured m = measure_rounds(pool, timer, default_plan, start + *left);
  const Clock::duration spent = Clock::now() - start;
  *left -= std::min(*left, spent);
  m.seconds = std::chrono::duration<double>(spent).count();
  return m;
}

// The kernels' names; each plan is one of them, "-dyn" or not.
std::string kernel_names() {
  std::string s;
  for (const GemvPlan &p : all_gemv_plans())
    if (!p.dynamic_split)
      s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

} // namespace

const GemvPlan *default_gemv_plan() {
  const Isa isa = active_isa();
  // What each level ran best where it was measured, so that a shape the
  // budget did not reach runs well: eight rows at once on a Xeon with AMX
  // (96% of the read bound); one sequential stream per thread with one
  // chain of sums on a Zen 4 with AVX512-BF16 and no AMX, where eight rows
  // streamed 12-20 GB/s and one row 29-33 on every Qwen3 shape, and one
  // chain 1-8% faster than two on two threads and up to a quarter on one
  // (the whole decode's matrices in turn, interleaved, 2026-11-28).
  if (isa >= Isa::Amx)
    return find_gemv_plan("bf16dp512-r8u1-pf1");
  if (isa >= Isa::Avx512Bf16)
    return find_gemv_plan("bf16dp512-r1u1-pf0");
  // AVX-512 without BF16 streamed bf16 at m = 1 slower than the avx2 form
  // (an Intel Xeon capped to each level, 2 threads: tg128 at 11.4 against
  // 16.2 tok/s).
  if (isa >= Isa::Avx2)
    return find_gemv_plan("avx2-r2u1-pf1");
  return nullptr;
}

void borrow_measured_plans(std::vector<GemvChoice> &choices) {
  auto measured = [](const GemvChoice &c) { return c.plan && c.gb_s > 0; };
  for (GemvChoice &c : choices) {
    if (c.how != "default (budget spent)")
      continue;
    const GemvChoice *like = nullptr;
    for (const GemvChoice &o : choices) {
      if (!measured(o))
        continue;
      // The same row length first: a row's dot product is the kernel's
      // inner loop, and the rows split across threads the same way.
      const bool same = o.cols == c.cols;
      const bool like_same = like && like->cols == c.cols;
      if (!like || (same && !like_same) ||
          (same == like_same && o.matrices * o.rows * o.cols >
                                    like->matrices * like->rows * like->cols))
        like = &o;
    }
    if (!like)
      continue;
    c.plan = like->plan;
    c.how = "like " + std::to_string(like->rows) + "x" +
            std::to_string(like->cols) + " (budget spent)";
  }
}

void check_gemv_kernels_setting(const std::string &value,
                                const std::string &source) {
  if (value == "auto" || value == "measure" || value == "default" ||
      find_gemv_plan(value))
    return;
  throw Error(source + ": unknown value '" + value +
              "' (expected auto, measure, default, or a plan: one of " +
              kernel_names() + ", each also with -dyn)");
}

std::vector<GemvChoice>
choose_gemv_plans(ThreadPool &pool,
                  const std::vector<const WeightMatrix *> &matrices,
                  const GemvTuning &options) {
  check_gemv_kernels_setting(options.kernels, "kernels");
  // Shapes, largest total first: with a budget, what decode reads most is
  // measured first.
  std::map<std::pair<int64_t, int64_t>, std::vector<const WeightMatrix *>>
      by_shape;
  int64_t model_bytes = 0;
  for (const WeightMatrix *m : matrices)
    if (m->dtype == DType::BF16 && m->data) {
      by_shape[{m->rows, m->cols}].push_back(m);
      model_bytes += m->rows * m->cols * 2;
    }
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (const auto &[shape, list] : by_shape)
    shapes.push_back(shape);
  std::sort(shapes.begin(), shapes.end(), [&](auto a, auto b) {
    const int64_t ba = int64_t(by_shape[a].size()) * a.first * a.second,
                  bb = int64_t(by_shape[b].size()) * b.first * b.second;
    return ba != bb ? ba > bb : a < b;
  });

  const GemvPlan *fallback = default_gemv_plan();
  const GemvPlan *forced = nullptr;
  if (options.kernels != "auto" && options.kernels != "measure" &&
      options.kernels != "default") {
    forced = find_gemv_plan(options.kernels);
    if (forced->kernel->isa > active_isa())
      throw Error("kernels: '" + options.kernels + "' needs the " +
                  std::string(isa_name(forced->kernel->isa)) +
                  " level; this CPU runs " +
                  std::string(isa_name(active_isa())));
  }
  const bool measure_all = options.kernels == "measure";
  // Below the last-level cache decode reads the weights from cache, each call
  // takes microseconds, and dispatch rather than the kernel sets the speed.
  const bool fits_in_cache = model_bytes < last_level_cache_bytes();
  std::optional<GemvWisdom> wisdom;
  if (!options.wisdom_path.empty() && !forced && options.kernels != "default")
    wisdom.emplace(options.wisdom_path,
                   gemv_machine_key(pool.size(), options.memory));

  Clock::duration left = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.budget_s));
  // From the first measurement on: a load whose plans all come from the
  // wisdom file reads nothing.
  std::optional<HostLoadMeter> host_load;
  bool measured_any = false;
  std::vector<GemvChoice> out;
  for (const auto &shape : shapes) {
    GemvChoice c;
    c.rows = shape.first;
    c.cols = shape.second;
    c.matrices = int64_t(by_shape[shape].size());
    c.plan = fallback;
    c.how = "default";
    const std::string key = gemv_shape_key(c.rows, c.cols);
    const std::optional<GemvWisdomEntry> kept =
        wisdom && !measure_all ? wisdom->find(key) : std::nullopt;
    if (!fallback) {
      c.how = "default (no gemv kernels at this level)";
    } else if (forced) {
      c.plan = forced;
      c.how = "forced";
    } else if (options.kernels == "default") {
    } else if (const GemvPlan *known =
                   kept ? find_gemv_plan(kept->plan) : nullptr;
               known && known->kernel->isa <= active_isa()) {
      c.plan = known; // a plan this build has and this level runs
      c.how = "wisdom";
      c.gb_s = kept->gb_s;
      c.default_gb_s = kept->default_gb_s;
    } else if (fits_in_cache && !measure_all) {
      c.how = "default (model fits in cache)";
    } else {
      if (!host_load) {
        host_load.emplace();
        // Every shape's pages at once, before any timing: mapping one
        // shape's starts the kernel's readahead of the file around it,
        // which then ran beside the timed calls (Zen 4 VM, the first load
        // after the page cache was dropped: the first shape streamed at
        // 9.6 GB/s, a third of its rate, and used half the budget).
        for (const auto &[s, list] : by_shape)
          for (const WeightMatrix *w : list)
            populate(w->data, w->rows * w->cols * 2);
      }
      Measured m =
          measure_shape(pool, c.cols, by_shape[shape], *fallback, &left);
      c.seconds = m.seconds;
      if (m.complete) {
        c.plan = m.plan;
        c.how = "measured";
        c.gb_s = m.gb_s;
        c.default_gb_s = m.default_gb_s;
        if (wisdom)
          wisdom->put(key, {m.plan->name, m.gb_s, m.default_gb_s});
        measured_any = true;
      } else if (m.plan) {
        // Used, not kept: the next load measures it whole.
        c.plan = m.plan;
        c.how = "measured in part (budget spent)";
        c.gb_s = m.gb_s;
        c.default_gb_s = m.default_gb_s;
      } else {
        c.how = "default (budget spent)";
      }
    }
    out.push_back(c);
  }
  borrow_measured_plans(out);
  if (measured_any) {
    const std::optional<double> other = host_load->other_cores();
    if (other && *other >= options.busy_host_cores) {
      char why[96];
      std::snprintf(why, sizeof why,
                    "measured (not kept: other processes used %.2f cores)",
                    *other);
      for (GemvChoice &c : out)
        if (c.how == "measured")
          c.how = why;
    } else if (wisdom) {
      wisdom->save();
    }
  }
  return out;
}

} // namespace engine
