// engine/cpu/gemv_tuning.h - choosing each weight shape's gemv plan by
// measurement on the model's own weights, at model load.
//
// For each distinct bf16 weight shape the candidate plans of the active
// level (gemv_kernels.h) are timed streaming that shape's matrices, cycling
// through them so that every timed call reads memory the cache has long
// dropped, as decode does. Successive halving keeps the time within a
// budget; the winner replaces the level's default only when it streams
// faster than the default in the same, alternating, final round by more than
// the noise guard. Results go to a wisdom file (gemv_wisdom.h), so a machine
// measures once, unless other processes kept a quarter of a core or more
// busy meanwhile (host_load.h): then they serve this load only.
#pragma once

#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/matmul.h"

#include <string>
#include <vector>

namespace engine {

struct GemvTuning {
  /// "auto": the wisdom file's plan where it has one, else measure (and
  /// save); "measure": measure every shape again; "default": the level's
  /// default plan, nothing measured; or a plan's name, for every shape.
  std::string kernels = "auto";
  /// The wisdom file; empty: none (measure, keep nothing).
  std::string wisdom_path;
  /// The most time measurement may take, all shapes together.
  double budget_s = 0.3;
  /// Plans measured while other processes kept this many cores busy or more
  /// on average (host_load.h) run for this load but are not kept in the
  /// wisdom file: a quarter of a core is well clear of /proc/stat's
  /// 10 ms ticks over a 0.3 s measurement, and far less than a core taken.
  double busy_host_cores = 0.25;
  /// What memory the weights are in ("in place", "in 2 MiB pages"): part
  /// of the wisdom file's key, since the fastest plan depends on it. Empty:
  /// not said.
  std::string memory;
};

/// What one shape runs at m = 1, and why.
struct GemvChoice {
  int64_t rows = 0, cols = 0;
  int64_t matrices = 0; ///< of this shape in the model
  const GemvPlan *plan = nullptr;
  /// "measured", "measured (not kept: other processes used N cores)",
  /// "measured in part (budget spent)" (the best plan when the budget ran
  /// out, if clearly faster than the default; not kept), "wisdom",
  /// "forced", "default", "default (model fits in cache)", "like RxC
  /// (budget spent)" (a shape the budget did not reach runs what was
  /// measured for another), "default (budget spent)" (nothing was),
  /// "default (no gemv kernels at this level)".
  std::string how;
  double gb_s = 0;         ///< the plan's rate when measured (0: not)
  double default_gb_s = 0; ///< the default plan's, same measurement
  double seconds = 0;      ///< the measurement took (pages mapped apart)
};

/// The active level's default plan (what ran before plans were measured);
/// null at the scalar level.
const GemvPlan *default_gemv_plan();

/// Chooses a plan for each distinct shape of the bf16 matrices among
/// `matrices` (others are ignored), largest shapes first. Throws
/// engine::Error for a plan name this build lacks or this CPU cannot run.
std::vector<GemvChoice>
choose_gemv_plans(ThreadPool &pool,
                  const std::vector<const WeightMatrix *> &matrices,
                  const GemvTuning &options);

/// Gives each shape the budget did not reach ("default (budget spent)")
/// the plan measured for another: one with the same row length if any, else
/// the one with the most bytes. The default can stream at half the measured
/// plans' rate, so a measured plan elsewhere is the better guess; such a
/// choice is not kept, so the next load measures the shape.
void borrow_measured_plans(std::vector<GemvChoice> &choices);

/// "auto", "measure", "default" or a plan this build has; the error names
/// `source` and lists the plans.
void check_gemv_kernels_setting(const std::string &value,
                                const std::string &source);

} // namespace engine
