//===- OtherProcesses.cpp - which processes took the CPU around a run -----===//
#include "run/OtherProcesses.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace perfcc::perfctl {

namespace {

std::string readSmallFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The command line of \p pid, arguments separated by spaces, at most 60
/// characters; the process's name where it has none (a kernel thread).
std::string commandOf(int pid) {
  std::string line = readSmallFile(fmt::format("/proc/{}/cmdline", pid));
  // Arguments are separated by NULs; a newline inside one (python3 -c's
  // code) would break the warning's one line.
  for (char &c : line)
    if (static_cast<unsigned char>(c) < ' ')
      c = ' ';
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  if (line.empty()) {
    line = readSmallFile(fmt::format("/proc/{}/comm", pid));
    while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
      line.pop_back();
    line = "[" + line + "]";
  }
  return line.size() > 60 ? line.substr(0, 57) + "..." : line;
}

} // namespace

std::optional<double> parseProcessCpuNs(std::string_view stat) {
  // "PID (NAME) STATE PPID ...": the name may hold spaces and parentheses,
  // so the fields start after the last ')'. utime and stime are the 14th
  // and 15th fields, the 12th and 13th after the name, in clock ticks.
  std::size_t close = stat.rfind(')');
  if (close == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = stat.substr(close + 1);
  unsigned long long ticks[2] = {};
  int field = 0;
  std::size_t at = 0;
  while (field < 13) {
    while (at < rest.size() && rest[at] == ' ')
      ++at;
    std::size_t end = rest.find(' ', at);
    if (at >= rest.size())
      return std::nullopt;
    if (end == std::string_view::npos)
      end = rest.size();
    if (field >= 11) {
      auto [stop, ec] = std::from_chars(rest.data() + at, rest.data() + end,
                                        ticks[field - 11]);
      if (ec != std::errc() || stop != rest.data() + end)
        return std::nullopt;
    }
    at = end;
    ++field;
  }
  long ticksPerSecond = sysconf(_SC_CLK_TCK);
  if (ticksPerSecond <= 0)
    return std::nullopt;
  return double(ticks[0] + ticks[1]) * 1e9 / double(ticksPerSecond);
}

ProcessCpuTimes readProcessCpuTimes() {
  ProcessCpuTimes times;
  DIR *proc = opendir("/proc");
  if (!proc)
    return times;
  while (dirent *entry = readdir(proc)) {
    int pid = 0;
    std::string_view name = entry->d_name;
    auto [end, ec] =
        std::from_chars(name.data(), name.data() + name.size(), pid);
    if (ec != std::errc() || end != name.data() + name.size())
      continue;
    std::string stat = readSmallFile(fmt::format("/proc/{}/stat", pid));
    if (std::optional<double> ns = parseProcessCpuNs(stat))
      times[pid] = *ns;
  }
  closedir(proc);
  return times;
}

std::vector<OtherProcess> busiestProcesses(const ProcessCpuTimes &before,
                                           const ProcessCpuTimes &after,
                                           double wallNs,
                                           const std::set<int> &exclude,
                                           double minCores, std::size_t count) {
  std::vector<OtherProcess> busiest;
  if (wallNs <= 0)
    return busiest;
  for (const auto &[pid, ns] : after) {
    if (exclude.count(pid))
      continue;
    // A process that started during the run used all it shows.
    auto was = before.find(pid);
    double used = ns - (was == before.end() ? 0 : was->second);
    if (used / wallNs > minCores)
      busiest.push_back({pid, "", used / wallNs});
  }
  std::sort(busiest.begin(), busiest.end(),
            [](const OtherProcess &a, const OtherProcess &b) {
              return a.cores != b.cores ? a.cores > b.cores : a.pid < b.pid;
            });
  if (busiest.size() > count)
    busiest.resize(count);
  for (OtherProcess &p : busiest)
    p.command = commandOf(p.pid);
  return busiest;
}

std::string describeProcesses(const std::vector<OtherProcess> &processes) {
  std::string text;
  for (const OtherProcess &p : processes)
    text += fmt::format("{}{} (pid {}, {:.2f} cores)", text.empty() ? "" : "; ",
                        p.command.empty() ? "?" : p.command, p.pid, p.cores);
  return text;
}

} // namespace perfcc::perfctl
