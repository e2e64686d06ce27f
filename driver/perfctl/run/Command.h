//===- Command.h - run the measured command once ----------------*- C++ -*-===//
//
// Starts the command with posix_spawnp (so "not found" is a return value,
// not a child that exits 127), with a given environment and its standard
// output and error in files, waits for it (optionally with a time limit),
// and times it on CLOCK_MONOTONIC, with the CPU time it used and the CPU
// time the rest of the machine used meanwhile (run/MachineLoad.h), naming
// the busiest other processes when they took much of it.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_RUN_COMMAND_H
#define PERFCC_DRIVER_PERFCTL_RUN_COMMAND_H

#include "run/OtherProcesses.h"

#include <map>
#include <string>
#include <vector>

namespace perfcc::perfctl {

struct CommandResult {
  bool started = false;
  std::string startError; ///< strerror of the spawn, when not started
  int exitStatus = -1;    ///< when it exited
  int signal = 0;         ///< when a signal ended it
  bool timedOut = false;  ///< killed (SIGKILL) at the time limit
  double wallNs = 0;
  /// CPU time of the command and the descendants it waited for (wait4's
  /// rusage, user + system); -1 when unknown.
  double cpuNs = -1;
  /// Busy CPU time of the whole machine over the run (/proc/stat); -1
  /// where it cannot be read.
  double machineBusyNs = -1;
  /// Time during which some task on the machine waited for a CPU, over the
  /// run (/proc/pressure/cpu); -1 where the kernel does not keep it.
  double cpuPressureNs = -1;
  /// That time as a share of the run's wall time, in [0, 1]; -1 when
  /// unknown. Threads with a CPU each wait little (a thread just woken
  /// waits for its CPU a few microseconds); threads stacked on one CPU wait
  /// most of the time.
  double cpuWaitShare() const;
  /// Cores used on average by everything but the command while it ran; -1
  /// when unknown. Never below 0 (the two clocks tick differently).
  double otherCpuCores() const;
  /// Whether other processes took more than BusyMachineCores over the run
  /// by more than /proc/stat can be wrong by: its counts move in ticks (10
  /// ms), one per CPU either side, which on a run of 40 ms reads as 0.3 of
  /// a core that nothing used.
  bool disturbed() const;
  /// Where the run was disturbed: the busiest other processes
  /// (run/OtherProcesses.h), so a warning can name them.
  std::vector<OtherProcess> busiestOthers;
  bool ok() const { return started && signal == 0 && exitStatus == 0; }
  /// "exited with status 3", "was killed by signal 11 (Segmentation
  /// fault)", "ran past the 60 s time limit".
  std::string describe() const;
};

/// The current environment without every variable in \p remove (names, or
/// prefixes ending in '*'), with \p set added.
std::vector<std::string>
makeEnvironment(const std::vector<std::string> &remove,
                const std::map<std::string, std::string> &set);

/// Runs \p argv (searched on PATH) with \p environment ("NAME=VALUE"),
/// stdin from /dev/null, stdout into \p stdoutPath and stderr into
/// \p stderrPath; waits at most \p timeoutS seconds (0: no limit).
CommandResult runCommand(const std::vector<std::string> &argv,
                         const std::vector<std::string> &environment,
                         const std::string &stdoutPath,
                         const std::string &stderrPath, double timeoutS);

/// True once SIGINT or SIGTERM reached perfctl (after
/// installInterruptHandlers): the sweep stops after the run in flight.
bool interrupted();
void installInterruptHandlers();

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_RUN_COMMAND_H
