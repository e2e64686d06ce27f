//===- Runner.h - run a sweep's plan, run by run ----------------*- C++ -*-===//
//
// Runs each planned run with its own PERFCC_OUT (DIR/runs/NNNN, with the
// command's stdout and stderr beside the summaries), reads what it measured,
// and rewrites DIR/sweep.json after every run, so whatever stops a sweep (a
// failing run, Ctrl-C) leaves everything measured so far on disk.
//
// A run that cannot be started, exits non-zero, writes no summary, never
// reaches its progress point, or shows that a group's targets delayed (or,
// in a speedup sweep, sped up) nothing stops the sweep with one line naming
// the run and the problem. A virtual speedup the runtime marks invalid does
// not: it is a warning, and the analysis marks the group.
//
// A run during which other processes took more than BusyMachineCores is
// disturbed (run/MachineLoad.h): slack between threads that took turns
// reads as none. It is made again once the machine has settled, at most
// MaxRemakesPerRun times; the disturbed measurement stays in sweep.json,
// unused. Should the machine not settle within SettleWaitS, its load is
// its state rather than a disturbance: runs are no longer made again and
// the answer's warning names the processes that took the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_RUNNER_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_RUNNER_H

#include "run/Command.h"
#include "run/MachineLoad.h"
#include "run/Result.h"
#include "speedup/Analysis.h"
#include "sweep/Analysis.h"
#include "sweep/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perfcc::perfctl {

struct SweepOptions {
  std::vector<std::string> command;
  std::vector<Group> groups;
  std::vector<std::uint64_t> delays;
  std::vector<unsigned> speedups; ///< --speedup: percents; empty: delays
  unsigned repeats = 3;     ///< fixed, or the first rounds of an adaptive sweep
  bool autoDelays = false;  ///< --delays auto: a pilot chooses each ladder
  bool adaptive = false;    ///< more rounds until settled or out of budget
  double budgetS = 600;     ///< --budget, seconds, for the whole sweep
  double targetWidth = 0.2; ///< --ci-width: settled at most this wide
  std::uint64_t seed = 1;
  std::uint64_t frequency = 1;
  std::uint64_t warmupMs = 0, windowMs = 0;
  ThroughputSpec throughput;
  std::string outDir = "perfctl-out";
  double timeoutS = 0;
  std::vector<int> pin; ///< --pin: the CPUs the runs may use; empty: any
  bool quiet = false;   ///< no progress on stderr
  AnalysisSettings analysis;
};

struct RunRecord {
  PlannedRun plan;
  std::string folder; ///< relative to the output folder: runs/0007
  CommandResult command;
  bool measured = false;
  RunOutcome outcome;
  double delayedCallsPerUnit = 0;
  double targetNsPerCall = -1;     ///< armed runs whose targets ran
  double targetWorkNsPerCall = -1; ///< their own work a call, if reported
  double targetHeldShare = -1;     ///< of that work, done holding a mutex
  std::string error;
  /// Measured while other processes took the CPU, and made again: kept for
  /// the record (runs/NNNN.disturbed-K), not used (measured is false).
  bool disturbed = false;
};

/// What else ran on the machine during a sweep's runs (run/MachineLoad.h).
struct MachineUse {
  unsigned cpus = 0;          ///< CPUs perfctl and its runs may use
  double otherCoresMean = -1; ///< over all runs, weighted by their time
  double otherCoresMax = -1;  ///< in the busiest run
  bool known() const { return otherCoresMean >= 0; }
  /// Busy enough that the sweep warns (run/MachineLoad.h).
  bool busy() const { return otherCoresMean > BusyMachineCores; }
};

/// The machine use over \p records (every run made but the disturbed ones
/// made again: the runs the answer stands on).
MachineUse machineUseOf(const std::vector<RunRecord> &records);

/// How an adaptive sweep sized one group (sweep/Sizing.h).
struct GroupSizing {
  std::string ladder;   ///< --delays auto: what the pilot measured, chose
  unsigned repeats = 0; ///< runs at each of its delays, at the least
  bool settled = false;
  std::string status; ///< isSettled's sentence after the last round
};

struct SweepState {
  SweepOptions options;
  SweepPlan plan;
  std::vector<GroupSizing> sizing; ///< per group
  /// What ended the runs: "fixed" (--repeats without --budget), "settled",
  /// "budget" or "max-repeats".
  std::string stop = "fixed";
  unsigned rounds = 0;            ///< adaptive rounds after the first repeats
  std::vector<RunRecord> records; ///< the runs made, in order
  std::string status = "running"; ///< running, complete, failed, interrupted
  std::string error;
  std::vector<std::string> warnings;
  unsigned remade = 0;       ///< disturbed runs made again
  bool stopRemaking = false; ///< the machine did not settle: no more
  /// The busiest other processes of the busiest disturbed run seen.
  std::string busiestOthers;
  double busiestOthersCores = -1;
};

/// Makes the runs of \p state.plan not made yet (all of them at first;
/// those appended since, in an adaptive sweep). Returns 0 when all
/// succeeded, 1 after a failed run (state.error says why), 130 when
/// interrupted. Prints progress and warnings on stderr.
int runSweep(SweepState &state);

/// Warns (state.warnings and stderr) when other processes took CPU time
/// the sweep's runs needed; once, after the last run.
void warnIfMachineBusy(SweepState &state);

/// Warns (state.warnings and stderr) for each group whose threads took
/// turns for a CPU while it was delayed (GroupAnalysis::tookTurns).
void warnWhereThreadsTookTurns(SweepState &state,
                               const SweepAnalysis &analysis);

/// The successful runs, as the analysis takes them.
std::vector<RunPoint> pointsOf(const SweepState &state);
/// The successful runs of a speedup sweep, as its analysis takes them.
std::vector<SpeedupPoint> speedupPointsOf(const SweepState &state);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_RUNNER_H
