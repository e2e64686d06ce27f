// engine/cpu/host_load.cpp - other processes' CPU time around a measurement.
#include "engine/cpu/host_load.h"

#include "perfcc/ProcStat.h"

#include <chrono>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace engine {
namespace {

std::optional<double> machine_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  return parse_busy_cpu_seconds(line);
}

double own_cpu_seconds() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0)
    return 0;
  auto seconds = [](const timeval &t) {
    return double(t.tv_sec) + double(t.tv_usec) * 1e-6;
  };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

double wall_seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

std::optional<double> parse_busy_cpu_seconds(std::string_view proc_stat) {
  const std::optional<unsigned long long> busy =
      perfcc::parseBusyCpuTicks(proc_stat);
  const long hz = sysconf(_SC_CLK_TCK);
  if (!busy || hz <= 0)
    return std::nullopt;
  return double(*busy) / double(hz);
}

HostLoadMeter::HostLoadMeter()
    : busy_s_(machine_busy_seconds()), own_s_(own_cpu_seconds()),
      wall_s_(wall_seconds()) {}

std::optional<double> HostLoadMeter::other_cores() const {
  const std::optional<double> busy = machine_busy_seconds();
  const double wall = wall_seconds() - wall_s_;
  if (!busy || !busy_s_ || !(wall > 0))
    return std::nullopt;
  const double other = (*busy - *busy_s_) - (own_cpu_seconds() - own_s_);
  // /proc/stat counts whole ticks: a little below 0 is rounding.
  return other > 0 ? other / wall : 0.0;
}

} // namespace engine
