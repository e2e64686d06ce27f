//===- MachineLoadTest.cpp - what else ran on the machine during a run ----===//
//
// /proc/stat parsing, the run's own CPU time from wait4, and the CPU time
// the rest of the machine used meanwhile: a thread of this test spinning
// beside the run is "other" load, the run's own work is not.
//
//===----------------------------------------------------------------------===//
#include "run/MachineLoad.h"
#include "run/Command.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
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
