//===- ProcStat.h - the machine's busy CPU time from /proc/stat --*- C++
//-*-===//
//
// What counts as busy, shared by perfctl (run/MachineLoad.h: other
// processes beside a sweep's run) and the engine (cpu/host_load.h: other
// processes beside its kernel measurements), so the two see the same load:
// user, nice, system, irq, softirq and steal (time the hypervisor gave to
// someone else); not idle or iowait. Header-only: the engine builds on its
// own and links nothing of perfcc's.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PROCSTAT_H
#define PERFCC_PROCSTAT_H

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace perfcc {

/// The busy CPU time of all CPUs since boot, in clock ticks (USER_HZ), from
/// the text of /proc/stat; nullopt when its first line is not the "cpu "
/// total with at least eight numbers.
inline std::optional<unsigned long long>
parseBusyCpuTicks(std::string_view procStat) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice";
  // guest time is already inside user and nice.
  std::string_view line = procStat.substr(0, procStat.find('\n'));
  if (line.substr(0, 4) != "cpu ")
    return std::nullopt;
  unsigned long long fields[8] = {};
  std::size_t at = 4;
  for (unsigned long long &field : fields) {
    while (at < line.size() && line[at] == ' ')
      ++at;
    auto [end, ec] =
        std::from_chars(line.data() + at, line.data() + line.size(), field);
    if (ec != std::errc())
      return std::nullopt;
    at = std::size_t(end - line.data());
  }
  enum { User, Nice, System, Idle, IoWait, Irq, SoftIrq, Steal };
  return fields[User] + fields[Nice] + fields[System] + fields[Irq] +
         fields[SoftIrq] + fields[Steal];
}

} // namespace perfcc

#endif // PERFCC_PROCSTAT_H
