//===- OtherProcesses.h - which processes took the CPU around a run -*- C++
//-*-===//
//
// When a sweep finds the machine busy (run/MachineLoad.h), "other processes
// used a core" tells the user to look but not where. The CPU time of every
// process (/proc/PID/stat's utime + stime, all its threads) before and after
// a run names the ones that used it. A process that started and ended within
// the run is not seen: what it used still counts in the machine's total.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_RUN_OTHERPROCESSES_H
#define PERFCC_DRIVER_PERFCTL_RUN_OTHERPROCESSES_H

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace perfcc::perfctl {

/// CPU time of each process on the machine, in ns, by pid.
using ProcessCpuTimes = std::map<int, double>;

/// Every process's CPU time now (processes that vanish while they are read
/// are left out); empty where /proc cannot be read.
ProcessCpuTimes readProcessCpuTimes();

/// utime + stime in ns from the text of a /proc/PID/stat; nullopt if it is
/// not one (exposed for tests).
std::optional<double> parseProcessCpuNs(std::string_view stat);

struct OtherProcess {
  int pid = 0;
  std::string command; ///< its command line, shortened, or its name
  double cores = 0;    ///< on average over the run
};

/// The processes (but \p exclude) that used more than \p minCores on
/// average between \p before and \p after, \p wallNs apart, busiest first,
/// at most \p count.
std::vector<OtherProcess> busiestProcesses(const ProcessCpuTimes &before,
                                           const ProcessCpuTimes &after,
                                           double wallNs,
                                           const std::set<int> &exclude,
                                           double minCores, std::size_t count);

/// "python3 -c while True: pass (pid 4242, 0.98 cores)", joined by "; ".
std::string describeProcesses(const std::vector<OtherProcess> &processes);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_RUN_OTHERPROCESSES_H
