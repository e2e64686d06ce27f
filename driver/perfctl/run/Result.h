//===- Result.h - what one run of a sweep measured --------------*- C++ -*-===//
//
// A run leaves one <program>.<pid>.summary.json per process in its
// PERFCC_OUT (docs/runtime.md); a program that forks leaves several. This
// reads them, merges them (counts and delays summed, the longest window
// kept), and turns them into the run's throughput, the work done in the
// window, and the delay injected per unit of that work, with the throughput
// read from a progress point, the wall time, or a number the program prints.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_RUN_RESULT_H
#define PERFCC_DRIVER_PERFCTL_RUN_RESULT_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcc {
class Selection;
} // namespace perfcc

namespace perfcc::perfctl {

struct ProgressCount {
  std::string name;
  std::string kind;                           ///< "throughput" or "latency"
  std::uint64_t count = 0, countInWindow = 0; ///< ends, for latency points
};

struct DelayedFunction {
  std::string name;
  std::uint64_t delayedCalls = 0, requestedNs = 0, deliveredNs = 0;
  double worstErrorNs = 0;
  /// Its own work (time less delays and time blocked on other threads)
  /// over \c workCalls calls; 0 from a runtime that does not report it.
  std::uint64_t workNs = 0, workCalls = 0;
  /// The part of that work done holding a mutex (the runtime's held_share
  /// times its work), summed so that several processes' summaries merge.
  double heldWorkNs = 0;
};

struct ProbedFunction {
  std::string name, mangled, file;
  std::uint64_t calls = 0;
  double inclusiveNs = 0; ///< total over the calls
};

/// The merged summaries of one run.
struct RunMeasurement {
  std::vector<std::string> files; ///< the summaries read
  std::uint64_t windowNs = 0;     ///< the longest window
  std::uint64_t durationNs = 0;   ///< the longest process
  bool hasDelay = false;          ///< the runtime reported a "delay" object
  bool armed = false;             ///< any process had delay targets
  std::uint64_t delayedCalls = 0, requestedNs = 0, deliveredNs = 0;
  /// Time threads waited for a mutex (summed over threads and processes),
  /// and the acquisitions that waited; armed runs only.
  std::uint64_t mutexWaitNs = 0, contendedLocks = 0;
  double clockReadNs = 0, minDelayNs = 0; ///< the runtime's calibration
  std::vector<DelayedFunction> delayed;   ///< merged by name
  std::vector<ProgressCount> progress;    ///< merged by name, first seen first
  std::vector<ProbedFunction> functions;  ///< merged by name
  // A virtual speedup (Coz's mode), when the runtime reported a "speedup".
  bool hasSpeedup = false;
  std::uint64_t speedupPercent = 0;
  std::uint64_t insertedNs = 0, paidNs = 0; ///< summed over processes
  std::uint64_t effectiveNs = 0; ///< window minus inserted; the longest
  bool speedupValid = true;      ///< false when any process said so
  std::string speedupReason;     ///< the runtime's, when not valid
};

/// Parses one summary's text; \p name names it in errors.
std::optional<RunMeasurement> parseSummary(std::string_view text,
                                           const std::string &name,
                                           std::string &error);
/// Adds \p one (another process of the same run) into \p into.
void mergeMeasurement(RunMeasurement &into, const RunMeasurement &one);
/// Reads and merges every *.summary.json in \p folder. No summary at all is
/// an error ("wrote no summary into FOLDER ...").
std::optional<RunMeasurement> readRunFolder(const std::string &folder,
                                            std::string &error);

/// Where throughput comes from.
enum class ThroughputSource { Progress, WallTime, Regex };
struct ThroughputSpec {
  ThroughputSource source = ThroughputSource::Progress;
  std::string progress; ///< empty: the first progress point
  double work = 1;      ///< units of work per run, for WallTime
  std::string regex;    ///< one capture group: the rate, for Regex
};

/// A PCRE2 pattern with one capture group that captures a number.
class OutputPattern {
public:
  /// Nullptr and \p error set when \p pattern does not compile or does not
  /// have exactly one capture group.
  static std::unique_ptr<OutputPattern> compile(const std::string &pattern,
                                                std::string &error);
  ~OutputPattern();
  /// The number captured by the last match in \p text (a program printing
  /// its rate as it goes prints the final one last).
  std::optional<double> lastNumber(std::string_view text,
                                   std::string &error) const;

private:
  OutputPattern() = default;
  std::string source;
  void *code = nullptr; ///< pcre2_code_8
};

/// One run's numbers.
struct RunOutcome {
  std::string progress;     ///< the progress point read, if any
  double throughput = 0;    ///< units of work per second
  double workUnits = 0;     ///< units of work in the window
  double timePerUnitNs = 0; ///< 1e9 / throughput
  double windowNs = 0;
  std::uint64_t delayedCalls = 0;
  double deliveredNs = 0;    ///< delay delivered in the window
  double delayPerUnitNs = 0; ///< deliveredNs / workUnits
  /// Time threads waited for a mutex another thread held, as a share of
  /// the run (summed over threads: 0.5 is one thread waiting half of it).
  double mutexWaitShare = 0;
  // A virtual speedup (progress points only): the predicted throughput of
  // the program with the targets P% faster, the runtime's
  // virtual_rate_per_s: units of work over the window minus the delay
  // inserted into the other threads.
  bool speedup = false;
  double virtualThroughput = 0;
  double effectiveWindowNs = 0, insertedNs = 0, paidNs = 0;
  bool speedupValid = true;
  std::string speedupReason;
};

/// Turns \p m into throughput and delay per unit of work. \p wallNs is the
/// run's wall time; \p output its standard output (for the regex). Errors
/// name the problem (no such progress point, nothing counted in the window,
/// no output matched).
std::optional<RunOutcome> measureRun(const RunMeasurement &m,
                                     const ThroughputSpec &spec,
                                     const OutputPattern *pattern,
                                     double wallNs, std::string_view output,
                                     std::string &error);

/// The probed functions \p selection picks in \p m: their calls and total
/// inclusive time, and which patterns matched none of them.
struct TargetUse {
  std::vector<std::string> functions;
  std::uint64_t calls = 0;
  double inclusiveNs = 0;
  /// The delayed targets' own work and the calls it was measured over.
  std::uint64_t workNs = 0, workCalls = 0;
  double heldWorkNs = 0;                   ///< of workNs, done holding a mutex
  std::vector<std::string> unusedPatterns; ///< including patterns, as written
};
TargetUse matchTargets(const Selection &selection, const RunMeasurement &m);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_RUN_RESULT_H
