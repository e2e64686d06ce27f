//===- Analysis.h - what a sweep's runs say ---------------------*- C++ -*-===//
//
// Per group: per-delay summaries, the fits of time per unit of work against
// the delay injected per unit of work, the classification of the curve
// (none, linear, sub-linear, threshold, inconclusive) with its evidence, the
// pass-through ratio, and what speeding the function up would buy. Across
// groups: the controls (armed at zero delay against unarmed: the overhead of
// arming, and the run-to-run noise), the ranking, and the one-line answer.
//
// The regression is of y = time per unit of work (ns) on x = delay injected
// per unit of work (ns): its slope is dimensionless, the pass-through ratio
// itself (1: every injected nanosecond lands on the critical path).
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_ANALYSIS_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_ANALYSIS_H

#include "sweep/CallRateModel.h"
#include "sweep/Statistics.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace perfcc::perfctl {

/// One successful run, as the analysis sees it.
struct RunPoint {
  int group = -1; ///< -1: the unarmed control
  std::uint64_t delayNs = 0;
  double throughput = 0;     ///< units of work per second
  double timePerUnitNs = 0;  ///< 1e9 / throughput
  double delayPerUnitNs = 0; ///< delivered delay per unit of work
  double delayedCallsPerUnit = 0;
  double targetNsPerCall = -1; ///< mean inclusive time of the targets, or -1
  /// Their mean own work a call (less delays and time blocked on other
  /// threads), or -1 when the runtime did not report it.
  double targetWorkNsPerCall = -1;
  /// The share of that work done holding a mutex (the runtime's held_share),
  /// or -1 when not reported.
  double targetHeldShare = -1;
  /// Time the threads waited for a mutex, as a share of the run (armed
  /// runs: RunOutcome::mutexWaitShare).
  double mutexWaitShare = 0;
  /// The share of the run during which some thread on the machine waited
  /// for a CPU (CommandResult::cpuWaitShare), or -1 when unknown.
  double cpuWaitShare = -1;
  double wallNs = 0; ///< the run's wall time
};

/// A group whose delayed runs' threads waited for a CPU this share of the
/// run more than its runs without delay (medians over each) took turns for a
/// CPU that they did not take in the program as it runs: a spinning delay
/// beside a thread with its own CPU then costs that thread time, and slack
/// reads as a line. Seen on a guest kernel that stacks tasks onto fewer vCPUs,
/// with no other process running (CI measured a short thread with slack as
/// linear, +9.2% against a real +1.9%, three times in a row). Threads that each
/// have a CPU wait a few percent of the run (a thread woken waits a moment for
/// it).
constexpr double TookTurnsShare = 0.2;

/// What a passing blip of waiting can add to one run, in ns (another
/// process starting beside it, a kernel worker): the rise in the share
/// must also clear this over the delayed runs' median wall time, or a
/// sweep of short runs would read a blip as taking turns (a
/// single-threaded stand-in, 28 ms runs, read 0 to 15% run to run).
constexpr double TurnsBlipNs = 20e6;

/// A group whose threads waited for a mutex this share of the run or more
/// (summed over threads) runs beside a contended mutex: a slack verdict
/// gets the caveat that slowing down cannot see a faster hand-off.
constexpr double ContendedMutexShare = 0.05;

/// A group that does this share of its own work or more holding a mutex
/// the threads contend for (ContendedMutexShare) holds the lock up: a line
/// through its slow-downs overstates what a faster critical section gains,
/// and the sweep cross-checks it by virtual speedups.
constexpr double HeldMutexShare = 0.5;

struct AnalysisSettings {
  double confidence = 0.95;
  unsigned resamples = 2000;
  std::uint64_t seed = 1;
  std::uint64_t frequency = 1;           ///< PERFCC_FREQUENCY of the runs
  std::vector<std::uint64_t> speedupsNs; ///< per call; empty: the delays
  /// --extrapolate P%: each call P% faster, of the targets' own work a call
  /// (their inclusive time when the runtime did not report the work).
  std::vector<unsigned> speedupPercents;
  // Classification thresholds on the pass-through ratio (the slope).
  double linearFloor = 0.8; ///< linear: CI above 0 and reaching this
  double noneCeiling = 0.2; ///< none: CI includes 0 and stays below this
  /// What a negative or none verdict weighs a slope by: the change in time
  /// per unit if the function's own work took no time at all (the slope
  /// times its share of the time per unit). A slope below 0 whose change
  /// reaches this share is a loss however small the slope: a function that
  /// is half the time per unit at pass-through -0.13 costs 6.5% made free.
  double materialEffect = 0.02;
  double maxWidth = 1.0; ///< wider CIs than this are inconclusive
  /// A threshold's flat stretch (the runs at or below its knee) must show
  /// a slope whose CI stays below this: flat, not a rise noise hid.
  double flatCeiling = 0.5;
};

/// Negative: slowing the function makes the program faster (the slope's
/// interval lies below 0), so speeding it up would slow the program down.
enum class Shape { None, Linear, SubLinear, Threshold, Negative, Inconclusive };
const char *shapeName(Shape shape);

/// Where a group's pass-through and predicted speedups come from. A speedup
/// starts from no delay, so where the curve bends, the stretch nearest no
/// delay says more about it than the line through every delay, whose slope
/// the steepest stretch dominates.
enum class SlopeSource {
  Line,       ///< the line through all the runs
  BeforeKnee, ///< a threshold's soft knee: the runs up to it, the most
  NearNoDelay ///< a curve that steepens: the runs at the smaller delays
};
const char *slopeSourceName(SlopeSource source);

/// A point estimate and its interval.
struct Estimate {
  double value = 0;
  Interval ci;
};

struct LevelStats {
  std::uint64_t delayNs = 0;
  Summary throughput;
  Summary timePerUnitNs;
  double delayPerUnitNs = 0; ///< median over the level's runs
  double delayedCallsPerUnit = 0;
  /// (median time per unit here - at delay 0) / delay per unit; not at 0.
  Estimate passThrough;
};

struct Extrapolation {
  std::uint64_t speedupNs = 0; ///< asked: each call this much faster
  unsigned percent = 0;        ///< asked as a percent of the call's work
  double usedNs = 0;           ///< after the cap
  bool capped = false;
  bool valid = false; ///< false: no estimate (inconclusive)
  Estimate gainPercent;
  /// A loss estimated through the function's call rate (CallRateModel.h):
  /// then the line's estimate is kept here, the loss's lower end. A gain
  /// measured by the cross-check of a group that holds a contended mutex
  /// (byCrossCheck), smaller than the line's: the line's, the most it could
  /// give. NaN when the line is the estimate.
  Estimate lineGainPercent{std::numeric_limits<double>::quiet_NaN(),
                           {std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::quiet_NaN()}};
  /// With byCallRate: the call-rate model's own estimate, the most the loss
  /// would be; kept here when the cross-check measured the loss instead.
  Estimate callRateGainPercent{std::numeric_limits<double>::quiet_NaN(),
                               {std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::quiet_NaN()}};
  bool byCallRate = false;
  bool byCrossCheck = false;
  std::string note;
};

/// A verdict that slowing down cannot settle, measured again by a virtual
/// speedup, the side slowing down cannot see (sweep/CrossCheck.h): slack
/// beside a contended mutex, a gain of a function that holds one, or a loss
/// through a call rate.
struct CrossCheck {
  bool wanted = false; ///< the caveat applies
  /// Why: the group holds the contended mutex (its gains extrapolated from
  /// the line are the most a faster call could give), not slack beside it.
  bool holdsMutex = false;
  /// Why: a loss through how often the function runs (CallRateModel.h),
  /// between the line's (the least) and the call-rate model's (the most).
  bool callRate = false;
  bool ran = false;     ///< measured: percent, gainPercent, valid
  std::string why;      ///< why it did not run, or why it is not valid
  unsigned percent = 0; ///< the largest speedup measured
  Estimate gainPercent; ///< the gain at it
  bool valid = false;
  /// Every speedup measured (percent, gain), the baseline left out.
  std::vector<std::pair<unsigned, Estimate>> levels;
};

struct GroupAnalysis {
  std::string name, file;
  std::vector<LevelStats> levels;
  LinearFit line;
  HingeTest hinge;
  /// The line over the runs at or below the hinge's knee: a threshold's
  /// flat stretch must be shown flat; a gentle rise on it (a soft knee) is
  /// the most a speedup would gain (SlopeSource::BeforeKnee).
  LinearFit flatPart;
  /// The line over the runs at no delay and the smaller half of the delays
  /// (at least two): where it is shown less steep than the line through
  /// every delay, the curve steepens, and a speedup is predicted from it
  /// (SlopeSource::NearNoDelay).
  LinearFit nearPart;
  double nearPartUpToNs = 0; ///< its largest delay per unit of work
  /// The level the hinge's p-value must stay under: 1 - confidence for one
  /// group; with several, Holm's step-down level for this group's rank among
  /// the groups' tests (0 once a smaller p-value failed), so that the chance
  /// of any false threshold in the sweep stays at 1 - confidence.
  double hingeAlpha = -1;  ///< < 0: not set (one group: 1 - confidence)
  unsigned hingeTests = 1; ///< how many groups' hinges were tested
  Shape shape = Shape::Inconclusive;
  std::vector<std::string> evidence; ///< sentences with the numbers
  Estimate passThrough;      ///< the headline (past the knee for threshold)
  double slackNsPerCall = 0; ///< threshold: the knee in per-call delay
  /// Which fit the pass-through and the speedups asked are from (with
  /// BeforeKnee, a threshold's soft knee: the most a speedup would gain).
  SlopeSource slopeSource = SlopeSource::Line;
  double noisePercent = 0;  ///< robust CV of the armed zero-delay runs
  Estimate overheadPercent; ///< armed zero delay against unarmed
  double callsPerUnit = 0;  ///< calls of the targets per unit of work
  double targetNsPerCall = -1;
  double targetWorkNsPerCall = -1; ///< own work a call, at delay 0
  /// Median over the armed runs of the share of the targets' own work done
  /// holding a mutex (RunPoint::targetHeldShare); -1 when not reported.
  double heldShare = -1;
  /// The median share of the run its armed zero-delay runs' threads waited
  /// for a mutex (RunPoint::mutexWaitShare).
  double mutexWaitShare = 0;
  /// The median share of the run some thread waited for a CPU, over its
  /// runs without delay (the unarmed runs' where it has none) and over its
  /// delayed runs; -1 when the kernel does not say.
  double cpuWaitShareUndelayed = -1;
  double cpuWaitShareDelayed = -1;
  /// Its threads took turns for a CPU while delayed (TookTurnsShare): a
  /// slope may be the machine's, not the program's.
  bool tookTurns = false;
  /// The unarmed control's median time per unit of work: the program as it
  /// runs without the experiment, which a predicted gain is relative to
  /// (NaN without controls: the armed baseline is used).
  double unarmedTimePerUnitNs = std::numeric_limits<double>::quiet_NaN();
  /// The smallest slack (knee, per unit of work) another group showed:
  /// what speeding this one up can save at most. Infinite when none did.
  double slackElsewhereNs = std::numeric_limits<double>::infinity();
  /// That knee's interval: a gain's interval is capped by its ends, not by
  /// the knee alone, since a noisy knee is a noisy cap.
  Interval slackElsewhereCI{std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::infinity()};
  std::string slackElsewhereGroup;
  /// A negative group's loss through how often it runs (CallRateModel.h).
  CallRateModel callRate;
  std::vector<Extrapolation> extrapolations;
  CrossCheck crossCheck;
  std::string verdict; ///< "on the critical path (linear), pass-through ..."
};

/// What a verdict beside a contended mutex ends with until the cross-check
/// has run (sweep/CrossCheck.h replaces it with the answer).
extern const char *const CrossCheckAdvice;
/// The same for a group that holds the contended mutex.
extern const char *const HeldMutexCrossCheckAdvice;
/// The same for a loss through a call rate.
extern const char *const CallRateCrossCheckAdvice;

/// An extrapolation's note where its loss is the call-rate model's: what
/// the model assumes, and the line's loss beside it.
std::string callRateNote(double lineGainPercent);

/// A negative group's verdict, without advice: its pass-through and the
/// loss at the largest speedup asked (the estimate as it stands).
std::string negativeVerdict(const GroupAnalysis &g);

struct SweepAnalysis {
  Summary unarmedThroughput;
  Summary unarmedTimePerUnitNs;
  /// The unarmed runs' median CpuWaitShare; -1 when unknown.
  double unarmedCpuWaitShare = -1;
  double noisePercent = 0; ///< robust CV of the unarmed runs
  std::vector<GroupAnalysis> groups;
  std::vector<std::size_t> ranking; ///< most critical first
  std::string answer;
};

/// \p groupNames and \p groupFiles index the groups of \p points;
/// \p delays are the delay levels (ascending, starting at 0).
SweepAnalysis analyzeSweep(const std::vector<std::string> &groupNames,
                           const std::vector<std::string> &groupFiles,
                           const std::vector<std::uint64_t> &delays,
                           const std::vector<RunPoint> &points,
                           const AnalysisSettings &settings);

/// Classifies one group from its fits (exposed for tests): fills shape,
/// evidence, passThrough and slackNsPerCall of \p group, whose levels, line,
/// hinge, noisePercent and callsPerUnit are set.
void classify(GroupAnalysis &group, const AnalysisSettings &settings);

/// Holm's step-down levels for \p pValues at family-wise level \p alpha:
/// the i-th result is the level p-value i had to stay under (alpha / (m -
/// rank) for the rank-th smallest), or 0 when a smaller p-value already
/// failed its own. Ties keep their input order.
std::vector<double> holmLevels(const std::vector<double> &pValues,
                               double alpha);

/// The speedup estimates of one classified group (exposed for tests).
void extrapolate(GroupAnalysis &group, const AnalysisSettings &settings,
                 const std::vector<std::uint64_t> &delays);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_ANALYSIS_H
