//===- Command.cpp - run the measured command once ------------------------===//
#include "run/Command.h"

#include "run/MachineLoad.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace perfcc::perfctl {

namespace {

volatile std::sig_atomic_t gInterrupted = 0;

void onInterrupt(int) { gInterrupted = 1; }

/// Waits for \p pid, at most \p timeoutS seconds when positive (through a
/// pidfd; without one, no limit). Forwards SIGTERM once when perfctl itself
/// is interrupted. Returns the wait status; sets \p timedOut, and \p usage
/// when it returns true in \p reaped.
int waitFor(pid_t pid, double timeoutS, bool &timedOut, rusage &usage,
            bool &reaped) {
  int pidfd = -1;
#ifdef SYS_pidfd_open
  if (timeoutS > 0)
    pidfd = int(syscall(SYS_pidfd_open, pid, 0));
#endif
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(timeoutS);
  bool forwarded = false;
  int status = 0;
  for (;;) {
    if (gInterrupted && !forwarded) {
      kill(pid, SIGTERM);
      forwarded = true;
    }
    if (pidfd >= 0 && !timedOut) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      pollfd fd{pidfd, POLLIN, 0};
      int ready = left > 0 ? poll(&fd, 1, int(left)) : 0;
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready == 0) {
        // SIGTERM first (the runtime writes its summary on it), SIGKILL
        // after two seconds of grace.
        timedOut = true;
        kill(pid, SIGTERM);
        pollfd again{pidfd, POLLIN, 0};
        if (poll(&again, 1, 2000) == 0)
          kill(pid, SIGKILL);
      }
    }
    pid_t done = wait4(pid, &status, 0, &usage);
    if (done == pid) {
      reaped = true;
      break;
    }
    if (done < 0 && errno != EINTR)
      break;
  }
  if (pidfd >= 0)
    close(pidfd);
  return status;
}

} // namespace

bool CommandResult::disturbed() const {
  double cores = otherCpuCores();
  long ticksPerSecond = sysconf(_SC_CLK_TCK);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 0 || ticksPerSecond <= 0 || cpus <= 0)
    return false;
  double uncertainNs = double(cpus) * 1e9 / double(ticksPerSecond);
  return cores * wallNs > BusyMachineCores * wallNs + uncertainNs;
}

std::string CommandResult::describe() const {
  if (!started)
    return fmt::format("could not be started: {}", startError);
  if (timedOut)
    return "ran past the time limit (--timeout) and was stopped";
  if (signal)
    return fmt::format("was killed by signal {} ({})", signal,
                       strsignal(signal));
  return fmt::format("exited with status {}", exitStatus);
}

double CommandResult::otherCpuCores() const {
  if (cpuNs < 0 || machineBusyNs < 0 || wallNs <= 0)
    return -1;
  return std::max(0.0, (machineBusyNs - cpuNs) / wallNs);
}

double CommandResult::cpuWaitShare() const {
  if (cpuPressureNs < 0 || wallNs <= 0)
    return -1;
  return std::clamp(cpuPressureNs / wallNs, 0.0, 1.0);
}

std::vector<std::string>
makeEnvironment(const std::vector<std::string> &remove,
                const std::map<std::string, std::string> &set) {
  std::vector<std::string> environment;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string item = *entry;
    std::string name = item.substr(0, item.find('='));
    bool drop = set.count(name) > 0;
    for (const std::string &pattern : remove) {
      if (!pattern.empty() && pattern.back() == '*')
        drop = drop || name.compare(0, pattern.size() - 1, pattern, 0,
                                    pattern.size() - 1) == 0;
      else
        drop = drop || name == pattern;
    }
    if (!drop)
      environment.push_back(item);
  }
  for (const auto &[name, value] : set)
    environment.push_back(name + "=" + value);
  return environment;
}

CommandResult runCommand(const std::vector<std::string> &argv,
                         const std::vector<std::string> &environment,
                         const std::string &stdoutPath,
                         const std::string &stderrPath, double timeoutS) {
  CommandResult result;
  std::vector<char *> args, env;
  for (const std::string &arg : argv)
    args.push_back(const_cast<char *>(arg.c_str()));
  args.push_back(nullptr);
  for (const std::string &item : environment)
    env.push_back(const_cast<char *>(item.c_str()));
  env.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, stdoutPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  ProcessCpuTimes processesBefore = readProcessCpuTimes();
  std::optional<double> busyBefore = machineBusyCpuNs();
  std::optional<double> pressureBefore = machineCpuPressureNs();
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(),
                        env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    result.startError = std::strerror(rc);
    return result;
  }
  result.started = true;
  rusage usage{};
  bool reaped = false;
  int status = waitFor(pid, timeoutS, result.timedOut, usage, reaped);
  result.wallNs = std::chrono::duration<double, std::nano>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  std::optional<double> busyAfter = machineBusyCpuNs();
  std::optional<double> pressureAfter = machineCpuPressureNs();
  auto ns = [](const timeval &t) { return t.tv_sec * 1e9 + t.tv_usec * 1e3; };
  if (reaped)
    result.cpuNs = ns(usage.ru_utime) + ns(usage.ru_stime);
  if (busyBefore && busyAfter)
    result.machineBusyNs = *busyAfter - *busyBefore;
  if (pressureBefore && pressureAfter)
    result.cpuPressureNs = std::max(0.0, *pressureAfter - *pressureBefore);
  if (result.disturbed())
    result.busiestOthers =
        busiestProcesses(processesBefore, readProcessCpuTimes(), result.wallNs,
                         {int(getpid()), int(pid)}, 0.05, 3);
  if (WIFEXITED(status))
    result.exitStatus = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

bool interrupted() { return gInterrupted != 0; }

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: waitpid returns EINTR
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

} // namespace perfcc::perfctl
