//===- MachineLoad.cpp - how busy the machine was around a run ------------===//
#include "run/MachineLoad.h"

#include <charconv>
#include <chrono>
#include <fstream>
#include <sched.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace perfcc::perfctl {

std::optional<double> parseBusyCpuNs(std::string_view procStat) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice",
  // in USER_HZ ticks; guest time is already inside user and nice.
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
  unsigned long long busy = fields[User] + fields[Nice] + fields[System] +
                            fields[Irq] + fields[SoftIrq] + fields[Steal];
  long ticksPerSecond = sysconf(_SC_CLK_TCK);
  if (ticksPerSecond <= 0)
    return std::nullopt;
  return double(busy) * 1e9 / double(ticksPerSecond);
}

std::optional<double> machineBusyCpuNs() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  return parseBusyCpuNs(line);
}

bool waitUntilQuiet(double maxSeconds, const std::function<bool()> &stop) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(maxSeconds);
  while (Clock::now() < deadline && !stop()) {
    std::optional<double> before = machineBusyCpuNs();
    auto start = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::optional<double> after = machineBusyCpuNs();
    if (!before || !after)
      return false;
    double wallNs =
        std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if ((*after - *before) / wallNs < BusyMachineCores)
      return true;
  }
  return false;
}

unsigned usableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return unsigned(CPU_COUNT(&set));
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? unsigned(online) : 1;
}

} // namespace perfcc::perfctl
