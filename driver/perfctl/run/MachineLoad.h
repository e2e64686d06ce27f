//===- MachineLoad.h - how busy the machine was around a run ----*- C++ -*-===//
//
// A sweep's answer holds only if the measured program had its CPUs to
// itself: when another process takes a core, threads that ran side by side
// take turns, slack between them disappears and thresholds read as linear.
// perfctl cannot prevent that, but it can see it: the machine's busy CPU
// time over a run (/proc/stat) minus the run's own CPU time (wait4's
// rusage) is what everything else used.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_RUN_MACHINELOAD_H
#define PERFCC_DRIVER_PERFCTL_RUN_MACHINELOAD_H

#include <functional>
#include <optional>
#include <string_view>

namespace perfcc::perfctl {

/// CPU time all CPUs have spent busy since boot, in ns: user, nice, system,
/// irq, softirq and steal (time the hypervisor gave to someone else), from
/// /proc/stat's first line. nullopt where /proc/stat cannot be read.
std::optional<double> machineBusyCpuNs();

/// The same, parsed from the text of a /proc/stat (exposed for tests).
std::optional<double> parseBusyCpuNs(std::string_view procStat);

/// Time during which at least one task on the machine was ready to run and
/// had no CPU to run on, since boot, in ns: the "some" total of the
/// kernel's pressure stall information (/proc/pressure/cpu). Where threads
/// that ran side by side take turns for a CPU, this grows with the time
/// they wait, whoever made them wait: other processes, or a scheduler that
/// stacks them on one CPU (a guest kernel packing its tasks onto fewer
/// vCPUs does that without any other process running). nullopt where the
/// kernel does not keep it (built without PSI, or booted with psi=0).
std::optional<double> machineCpuPressureNs();

/// The same, parsed from the text of a /proc/pressure/cpu (exposed for
/// tests).
std::optional<double> parseCpuPressureNs(std::string_view pressure);

/// The CPUs this process may run on (its affinity mask).
unsigned usableCpus();

/// Above this many cores used by other processes on average, a sweep warns
/// that the program did not have the machine to itself. /proc/stat counts
/// in 10 ms ticks, so one run's figure is only good to a few hundredths of
/// a core per second of run; a quarter of a core is well clear of that and
/// still far below what turns a threshold linear (a whole core).
constexpr double BusyMachineCores = 0.25;

/// A sweep's run during which other processes used more than
/// BusyMachineCores is disturbed: it is made again, at most this many
/// times, once the machine has settled (sweep/Runner.h).
constexpr unsigned MaxRemakesPerRun = 2;

/// How long a sweep waits for the machine to settle before it makes a
/// disturbed run again. A load that outlasts it is the machine's state, not
/// a passing disturbance: runs are then no longer made again.
constexpr double SettleWaitS = 10;

/// Waits until half a second passes in which the whole machine used less
/// than BusyMachineCores (the caller waits asleep, so what it counts is
/// other load), at most \p maxSeconds. False if that never happened, if
/// /proc/stat cannot be read, or once \p stop returns true.
bool waitUntilQuiet(double maxSeconds, const std::function<bool()> &stop);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_RUN_MACHINELOAD_H
