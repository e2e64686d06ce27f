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

#include <optional>
#include <string_view>

namespace perfcc::perfctl {

/// CPU time all CPUs have spent busy since boot, in ns: user, nice, system,
/// irq, softirq and steal (time the hypervisor gave to someone else), from
/// /proc/stat's first line. nullopt where /proc/stat cannot be read.
std::optional<double> machineBusyCpuNs();

/// The same, parsed from the text of a /proc/stat (exposed for tests).
std::optional<double> parseBusyCpuNs(std::string_view procStat);

/// The CPUs this process may run on (its affinity mask).
unsigned usableCpus();

/// Above this many cores used by other processes on average, a sweep warns
/// that the program did not have the machine to itself. /proc/stat counts
/// in 10 ms ticks, so one run's figure is only good to a few hundredths of
/// a core per second of run; a quarter of a core is well clear of that and
/// still far below what turns a threshold linear (a whole core).
constexpr double BusyMachineCores = 0.25;

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_RUN_MACHINELOAD_H
