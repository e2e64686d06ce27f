// engine/cpu/host_load.h - how much of the machine other processes used
// while this process measured something.
//
// A kernel measured while another process takes a core (a build, a second
// benchmark) can win by the other process's timing rather than its own, and a
// choice kept in the wisdom file would run on every later load. The
// machine's busy CPU time over the measurement (/proc/stat: user, nice,
// system, irq, softirq and steal) less this process's own (getrusage) is what
// everything else used. It cannot see a neighbour on the VM's host that only
// shares the memory bus; steal time is the part of the host it does see.
// (perfctl's sweep reads the same for its runs; the engine is a project of
// its own, built without perfctl's code.)
#pragma once

#include <optional>
#include <string_view>

namespace engine {

/// CPU seconds all CPUs have spent busy since boot, parsed from the text of
/// /proc/stat's first line; nullopt when it is not that line.
std::optional<double> parse_busy_cpu_seconds(std::string_view proc_stat);

/// Measures from construction to other_cores().
class HostLoadMeter {
public:
  HostLoadMeter();
  /// Cores other processes kept busy on average since construction (0 and
  /// up); nullopt where /proc/stat cannot be read or no time has passed.
  std::optional<double> other_cores() const;

private:
  std::optional<double> busy_s_;
  double own_s_ = 0, wall_s_ = 0;
};

} // namespace engine
