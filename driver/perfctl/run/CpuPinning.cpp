//===- CpuPinning.cpp - run the measured program on chosen CPUs -----------===//
#include "run/CpuPinning.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace perfcc::perfctl {

namespace {

std::optional<int> cpuNumber(std::string_view text) {
  int value = -1;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value >= CPU_SETSIZE)
    return std::nullopt;
  return value;
}

} // namespace

std::optional<std::vector<int>> parseCpuList(std::string_view text,
                                             std::string &error) {
  auto bad = [&](const std::string &why) -> std::optional<std::vector<int>> {
    error =
        fmt::format("'{}' is not a CPU list ({}; e.g. 2-3 or 0,2)", text, why);
    return std::nullopt;
  };
  if (text.empty())
    return bad("empty");
  std::vector<int> cpus;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t comma = std::min(text.find(',', at), text.size());
    std::string_view item = text.substr(at, comma - at);
    std::size_t dash = item.find('-');
    std::optional<int> first = cpuNumber(item.substr(0, dash));
    std::optional<int> last = dash == std::string_view::npos
                                  ? first
                                  : cpuNumber(item.substr(dash + 1));
    if (!first || !last)
      return bad(fmt::format("'{}' is not a CPU number or a range", item));
    if (*last < *first)
      return bad(fmt::format("'{}' is a reversed range", item));
    for (int cpu = *first; cpu <= *last; ++cpu)
      cpus.push_back(cpu);
    at = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int cpu : cpus)
      if (!CPU_ISSET(cpu, &allowed))
        return bad(fmt::format("CPU {} is not one this process may use", cpu));
  return cpus;
}

std::string formatCpuList(const std::vector<int> &cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
      ++j;
    text += (text.empty() ? "" : ",") +
            (j == i ? std::to_string(cpus[i])
                    : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return text;
}

ScopedAffinity::ScopedAffinity(const std::vector<int> &cpus) {
  if (cpus.empty() || sched_getaffinity(0, sizeof saved, &saved) != 0)
    return;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : cpus)
    CPU_SET(cpu, &wanted);
  set = sched_setaffinity(0, sizeof wanted, &wanted) == 0;
}

ScopedAffinity::~ScopedAffinity() {
  if (set)
    sched_setaffinity(0, sizeof saved, &saved);
}

} // namespace perfcc::perfctl
