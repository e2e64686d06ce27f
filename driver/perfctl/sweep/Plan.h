//===- Plan.h - which runs a sweep makes, and in what order ----*- C++ -*-===//
//
// A sweep runs the command once per group, per delay, per repeat, plus the
// unarmed control (no delay targets at all) as often as any delay, in
// rounds of one run each, every round in its own random order drawn from
// --seed: slow drifts of the machine (thermal, other load) then spread
// evenly over every delay instead of biasing the largest or a few runs.
// Delay 0 (the armed baseline) is always part of the sweep. Here too: the
// units delays are written in, and --group NAME=FILE.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_PLAN_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_PLAN_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcc::perfctl {

/// "0", "500" (ns), "500ns", "1us" ("1µs"), "2.5us", "2ms", "1s": a
/// non-negative delay, rounded to whole nanoseconds. On failure sets
/// \p error to a sentence (without the option's name).
std::optional<std::uint64_t> parseDelayNs(std::string_view text,
                                          std::string &error);
/// A comma-separated list of delays, sorted, duplicates removed.
std::optional<std::vector<std::uint64_t>> parseDelayList(std::string_view text,
                                                         std::string &error);
/// The shortest exact spelling: 0, 500ns, 1us, 2.5us, 2ms, 1s.
std::string formatDelay(std::uint64_t ns);
/// Nanoseconds with a unit chosen for reading (1.23us, 45.6ms); not exact.
std::string formatDuration(double ns);

/// "0,10,25,50" (or "10%,25%"): virtual speedups in whole percent, sorted,
/// duplicates and 0 removed (0 is the baseline every speedup sweep runs). A
/// value above 100, a fraction, or, when \p speedupSweep, BaselinePercent
/// itself is an error (--extrapolate's percents have no baseline).
std::optional<std::vector<unsigned>> parsePercentList(std::string_view text,
                                                      std::string &error,
                                                      bool speedupSweep = true);

/// The virtual speedup every speedup sweep runs as its baseline: the
/// runtime's speedup machinery armed as in every other run, with a
/// negligible speedup (PERFCC_SPEEDUP_PERCENT=0 means off). docs/perfctl.md
/// says how the gains are scaled to it.
constexpr unsigned BaselinePercent = 1;

/// One subsystem: a delay-targets file and the name its results go by.
struct Group {
  std::string name;
  std::string file;
};
/// "NAME=FILE" (NAME: letters, digits, '_', '-', '.'; FILE non-empty).
std::optional<Group> parseGroup(std::string_view spec, std::string &error);
/// The group --targets FILE makes: named after the file, without folder and
/// extension ("pipeline.targets" -> "pipeline").
Group groupForTargets(const std::string &file);
/// Checks each group's file with the selection language's parser: one that
/// cannot be read, has a malformed line, or selects nothing is an error
/// ("FILE: error: ..."). Also refuses two groups with the same name.
bool validateGroups(const std::vector<Group> &groups, std::string &error);

/// One run of the command.
struct PlannedRun {
  std::size_t index = 0; ///< 1-based position in the run order
  int group = -1;        ///< index into the groups; -1: the unarmed control
  std::uint64_t delayNs = 0;
  unsigned repeat = 0; ///< 1-based
  /// A virtual speedup run: its percent (PERFCC_SPEEDUP_PERCENT); 0 for
  /// speed bumps and for the unarmed control.
  unsigned speedupPercent = 0;
  bool armed() const { return group >= 0; }
};

struct SweepPlan {
  std::vector<Group> groups;
  /// A speed-bump sweep's delays, ascending, always starting at 0; empty in
  /// a speedup sweep. With ladders chosen per group (--delays auto), the
  /// union of groupDelays.
  std::vector<std::uint64_t> delays;
  /// Each group's own delays (ascending, from 0) when they differ between
  /// groups; empty: every group runs `delays`.
  std::vector<std::vector<std::uint64_t>> groupDelays;
  const std::vector<std::uint64_t> &delaysOf(std::size_t group) const {
    return groupDelays.empty() ? delays : groupDelays[group];
  }
  /// A speedup sweep's percents, ascending, starting at BaselinePercent;
  /// empty in a speed-bump sweep.
  std::vector<unsigned> speedups;
  bool speedup() const { return !speedups.empty(); }
  unsigned repeats = 0;
  std::uint64_t seed = 0;
  std::vector<PlannedRun> runs; ///< in the order they run
};

/// Every (group, delay, repeat) and \p repeats unarmed controls, in rounds
/// (appendRounds) drawn from \p seed. Adds delay 0 when \p delays lack it.
SweepPlan makePlan(std::vector<Group> groups, std::vector<std::uint64_t> delays,
                   unsigned repeats, std::uint64_t seed);

/// Appends \p runs to \p plan in an order shuffled with \p seed, after the
/// runs already planned (a round of an adaptive sweep, its pilot): each gets
/// its index and its repeat (one more than the plan's runs of the same
/// group and delay so far).
void appendShuffled(SweepPlan &plan, std::vector<PlannedRun> runs,
                    std::uint64_t seed);

/// One run at each delay of each of \p groups (indices into plan.groups),
/// plus one unarmed control when \p control: one round of an adaptive
/// sweep, unshuffled.
std::vector<PlannedRun> roundOf(const SweepPlan &plan,
                                const std::vector<int> &groups, bool control);

/// The indices of every group of \p plan.
std::vector<int> allGroups(const SweepPlan &plan);

/// \p count rounds of every group and the control (roundOf), appended one
/// after the other, each in its own order drawn from \p seed.
void appendRounds(SweepPlan &plan, unsigned count, std::uint64_t seed);

/// The seed of round \p round's order in a sweep drawn from \p seed.
std::uint64_t roundSeed(std::uint64_t seed, unsigned round);

/// Every (group, percent, repeat), with BaselinePercent added, and
/// \p repeats unarmed controls, in rounds drawn from \p seed: the
/// virtual-speedup sweep (Coz's mode).
SweepPlan makeSpeedupPlan(std::vector<Group> groups,
                          std::vector<unsigned> percents, unsigned repeats,
                          std::uint64_t seed);

/// "consumer, delay 10us, repeat 3" / "consumer, speedup 25%, repeat 1" /
/// "unarmed control, repeat 2".
std::string describeRun(const SweepPlan &plan, const PlannedRun &run);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_PLAN_H
