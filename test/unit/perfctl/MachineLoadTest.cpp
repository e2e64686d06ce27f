//===- MachineLoadTest.cpp - what else ran on the machine during a run ----===//
//
// /proc/stat parsing, the run's own CPU time from wait4, and the CPU time
// the rest of the machine used meanwhile: a thread of this test spinning
// beside the run is "other" load, the run's own work is not; and which
// other processes took the CPU (run/OtherProcesses.h).
//
//===----------------------------------------------------------------------===//
#include "run/MachineLoad.h"
#include "run/Command.h"
#include "run/OtherProcesses.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <optional>
#include <sched.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace perfcc::perfctl;

namespace {

/// A child that burns about 0.3 s of CPU on one core, whatever the machine.
const std::vector<std::string> Busy = {
    "/bin/sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"};

CommandResult runBusyChild() {
  char folder[] = "/tmp/machine-load-XXXXXX";
  EXPECT_NE(mkdtemp(folder), nullptr);
  std::string out = std::string(folder) + "/out",
              err = std::string(folder) + "/err";
  CommandResult result = runCommand(Busy, makeEnvironment({}, {}), out, err, 0);
  unlink(out.c_str());
  unlink(err.c_str());
  rmdir(folder);
  return result;
}

} // namespace

TEST(MachineLoad, ParsesTheBusyFieldsOfTheFirstLine) {
  long hz = sysconf(_SC_CLK_TCK);
  // user nice system idle iowait irq softirq steal guest guest_nice:
  // busy = 100 + 2 + 30 + 4 + 5 + 6 ticks; idle and iowait are not.
  std::optional<double> ns = parseBusyCpuNs(
      "cpu  100 2 30 9999 77 4 5 6 50 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n");
  ASSERT_TRUE(ns);
  EXPECT_DOUBLE_EQ(*ns, 147 * 1e9 / double(hz));
}

TEST(MachineLoad, RefusesWhatIsNotProcStat) {
  EXPECT_FALSE(parseBusyCpuNs(""));
  EXPECT_FALSE(parseBusyCpuNs("cpu0 1 2 3 4 5 6 7 8\n"));
  EXPECT_FALSE(parseBusyCpuNs("cpu  1 2 3\n"));
  EXPECT_FALSE(parseBusyCpuNs("cpu  1 2 x 4 5 6 7 8\n"));
}

TEST(MachineLoad, ReadsThisMachine) {
  std::optional<double> before = machineBusyCpuNs();
  ASSERT_TRUE(before);
  EXPECT_GE(usableCpus(), 1u);
}

TEST(MachineLoad, TheRunsOwnWorkIsNotOtherLoad) {
  // What the rest of the machine does anyway, over as long as the run.
  std::optional<double> idleBefore = machineBusyCpuNs();
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  double idleWallNs = std::chrono::duration<double, std::nano>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  std::optional<double> idleAfter = machineBusyCpuNs();
  ASSERT_TRUE(idleBefore && idleAfter);
  double background = (*idleAfter - *idleBefore) / idleWallNs;

  CommandResult result = runBusyChild();
  ASSERT_TRUE(result.ok()) << result.describe();
  // The child spins on one core: its CPU time is most of its wall time
  // (half, should the machine be busy and share the core).
  EXPECT_GT(result.cpuNs, 0.5 * result.wallNs);
  EXPECT_LE(result.cpuNs, 1.05 * result.wallNs + 20e6);
  // Its core is its own, not other load: counting it would add a whole
  // core to the background. Half a core of slack covers the background
  // changing between the two measurements and /proc/stat's 10 ms ticks.
  EXPECT_LT(result.otherCpuCores(), background + 0.5)
      << "background " << background << " cores";
}

TEST(MachineLoad, ASpinningThreadBesideTheRunIsOtherLoad) {
  if (usableCpus() < 2)
    GTEST_SKIP() << "needs two CPUs";
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  CommandResult result = runBusyChild();
  stop = true;
  spinner.join();
  ASSERT_TRUE(result.ok()) << result.describe();
  // One core spun throughout; /proc/stat ticks at 10 ms, so allow for a
  // few ticks either side of a ~0.3 s run.
  EXPECT_GT(result.otherCpuCores(), 0.6);
}

TEST(MachineLoad, ParsesTheCpuPressureSomeTotal) {
  std::optional<double> ns =
      parseCpuPressureNs("some avg10=1.50 avg60=0.20 avg300=0.00 total=12345\n"
                         "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  ASSERT_TRUE(ns);
  EXPECT_DOUBLE_EQ(*ns, 12345e3);
  // Older kernels have no "full" line for the CPU.
  EXPECT_EQ(parseCpuPressureNs("some avg10=0 avg60=0 avg300=0 total=7"), 7e3);
}

TEST(MachineLoad, RefusesWhatIsNotCpuPressure) {
  EXPECT_FALSE(parseCpuPressureNs(""));
  EXPECT_FALSE(parseCpuPressureNs("full avg10=0 avg60=0 avg300=0 total=7\n"));
  EXPECT_FALSE(parseCpuPressureNs("some avg10=0 avg60=0 avg300=0\n"));
  EXPECT_FALSE(parseCpuPressureNs("some avg10=0 total=x\n"));
  EXPECT_FALSE(parseCpuPressureNs("some avg10=0 total=12y\n"));
  EXPECT_FALSE(parseCpuPressureNs("awesome avg10=0 total=12\n"));
}

TEST(MachineLoad, ThreadsTakingTurnsForOneCpuArePressure) {
  if (!machineCpuPressureNs())
    GTEST_SKIP() << "this kernel keeps no CPU pressure (/proc/pressure/cpu)";
  // Two threads spinning on one CPU take turns: one of them waits all the
  // time, which is what a sweep must see when a program's threads that ran
  // side by side are stacked on one CPU.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  std::atomic<bool> stop{false};
  auto spin = [&] {
    sched_setaffinity(0, sizeof one, &one);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  };
  std::optional<double> before = machineCpuPressureNs();
  auto start = std::chrono::steady_clock::now();
  std::thread a(spin), b(spin);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  stop = true;
  a.join();
  b.join();
  double wallNs = std::chrono::duration<double, std::nano>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  std::optional<double> after = machineCpuPressureNs();
  ASSERT_TRUE(before && after);
  EXPECT_GT((*after - *before) / wallNs, 0.5);
}

TEST(OtherProcesses, ReadsCpuTimeAfterANameWithSpacesAndParentheses) {
  long hz = sysconf(_SC_CLK_TCK);
  // utime 7 and stime 5 ticks are the 14th and 15th fields.
  std::optional<double> ns = parseProcessCpuNs(
      "42 (a (b) c) S 1 42 42 0 -1 4194304 98 0 0 0 7 5 0 0 20 0 1 0 99\n");
  ASSERT_TRUE(ns);
  EXPECT_DOUBLE_EQ(*ns, 12 * 1e9 / double(hz));
  EXPECT_FALSE(parseProcessCpuNs(""));
  EXPECT_FALSE(parseProcessCpuNs("42 (x) S 1 2 3"));
  EXPECT_FALSE(parseProcessCpuNs("42 (x) S 1 42 42 0 -1 4 98 0 0 0 x 5 0"));
}

TEST(OtherProcesses, TheBusiestComeFirstAndTheRunsOwnAreLeftOut) {
  // Over one second: 1 used 0.9 s, 2 is excluded, 3 started during it and
  // used 0.3 s, 4 used 0.01 s (under the floor), 5 ended (not seen after).
  ProcessCpuTimes before = {{1, 1e9}, {2, 0}, {4, 5e9}, {5, 0}};
  ProcessCpuTimes after = {{1, 1.9e9}, {2, 1e9}, {3, 0.3e9}, {4, 5.01e9}};
  std::vector<OtherProcess> busiest =
      busiestProcesses(before, after, 1e9, {2}, 0.05, 3);
  ASSERT_EQ(busiest.size(), 2u);
  EXPECT_EQ(busiest[0].pid, 1);
  EXPECT_NEAR(busiest[0].cores, 0.9, 1e-9);
  EXPECT_EQ(busiest[1].pid, 3);
  EXPECT_NEAR(busiest[1].cores, 0.3, 1e-9);
  EXPECT_EQ(busiestProcesses(before, after, 1e9, {2}, 0.05, 1).size(), 1u);
  EXPECT_TRUE(busiestProcesses(before, after, 0, {}, 0.05, 3).empty());
}

TEST(OtherProcesses, ARunOnABusyMachineNamesTheProcessThatTookTheCpu) {
  if (usableCpus() < 2)
    GTEST_SKIP() << "needs two CPUs";
  pid_t spinner = fork();
  ASSERT_GE(spinner, 0);
  if (spinner == 0) {
    execl("/bin/sh", "sh", "-c", "while :; do :; done", nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CommandResult result = runBusyChild();
  kill(spinner, SIGKILL);
  waitpid(spinner, nullptr, 0);
  ASSERT_TRUE(result.ok()) << result.describe();
  ASSERT_TRUE(result.disturbed()) << result.otherCpuCores() << " cores";
  // Among the busiest three: another test run beside this one (ctest -j)
  // may be busier, and takes part of the spinner's core.
  auto named =
      std::find_if(result.busiestOthers.begin(), result.busiestOthers.end(),
                   [&](const OtherProcess &p) { return p.pid == spinner; });
  ASSERT_NE(named, result.busiestOthers.end())
      << describeProcesses(result.busiestOthers);
  EXPECT_GT(named->cores, 0.3);
  EXPECT_EQ(named->command, "sh -c while :; do :; done");
  EXPECT_NE(
      describeProcesses(result.busiestOthers)
          .find(fmt::format("sh -c while :; do :; done (pid {}, ", spinner)),
      std::string::npos);
}
