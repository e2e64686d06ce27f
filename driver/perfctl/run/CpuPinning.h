//===- CpuPinning.h - run the measured program on chosen CPUs ---*- C++ -*-===//
//
// perfctl sweep --pin CPUS: the runs are started with their CPU affinity set
// to CPUS, so the scheduler cannot move them onto cores shared with noisy
// neighbours (or, on a big machine, across sockets) between runs. The
// affinity is set on perfctl's own thread around the spawn: a child
// inherits it, and posix_spawn has no attribute for it.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_RUN_CPUPINNING_H
#define PERFCC_DRIVER_PERFCTL_RUN_CPUPINNING_H

#include <optional>
#include <sched.h>
#include <string>
#include <string_view>
#include <vector>

namespace perfcc::perfctl {

/// "0-3,6": CPU numbers, ascending, without duplicates. An empty list, a
/// malformed item, a reversed range or a CPU this process may not use is
/// an error (\p error: a sentence, without the option's name).
std::optional<std::vector<int>> parseCpuList(std::string_view text,
                                             std::string &error);

/// "0-3,6", the short form of \p cpus (ascending).
std::string formatCpuList(const std::vector<int> &cpus);

/// Sets the calling thread's affinity to \p cpus (none: leaves it) for its
/// lifetime, then restores the one it found.
class ScopedAffinity {
public:
  explicit ScopedAffinity(const std::vector<int> &cpus);
  ~ScopedAffinity();
  ScopedAffinity(const ScopedAffinity &) = delete;
  ScopedAffinity &operator=(const ScopedAffinity &) = delete;

private:
  cpu_set_t saved{};
  bool set = false;
};

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_RUN_CPUPINNING_H
