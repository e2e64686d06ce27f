//===- MachineLoad.cpp - how busy the machine was around a run ------------===//
#include "run/MachineLoad.h"

#include "perfcc/ProcStat.h"

#include <charconv>
#include <chrono>
#include <fstream>
#include <iterator>
#include <sched.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace perfcc::perfctl {

std::optional<double> parseBusyCpuNs(std::string_view procStat) {
  std::optional<unsigned long long> busy = parseBusyCpuTicks(procStat);
  long ticksPerSecond = sysconf(_SC_CLK_TCK);
  if (!busy || ticksPerSecond <= 0)
    return std::nullopt;
  return double(*busy) * 1e9 / double(ticksPerSecond);
}

std::optional<double> machineBusyCpuNs() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  return parseBusyCpuNs(line);
}

std::optional<double> parseCpuPressureNs(std::string_view pressure) {
  // "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345" (microseconds),
  // then a "full" line on newer kernels.
  std::size_t line = pressure.find("some ");
  if (line != 0 &&
      (line == std::string_view::npos || pressure[line - 1] != '\n'))
    return std::nullopt;
  std::string_view rest = pressure.substr(line);
  rest = rest.substr(0, rest.find('\n'));
  std::size_t at = rest.find(" total=");
  if (at == std::string_view::npos)
    return std::nullopt;
  rest.remove_prefix(at + 7);
  unsigned long long us = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), us);
  if (ec != std::errc() || end == rest.data() ||
      (end != rest.data() + rest.size() && *end != ' '))
    return std::nullopt;
  return double(us) * 1e3;
}

std::optional<double> machineCpuPressureNs() {
  std::ifstream in("/proc/pressure/cpu");
  if (!in)
    return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  return parseCpuPressureNs(text);
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
