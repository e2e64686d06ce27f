// test/engine/cpu/host_load_test.cpp - other processes' CPU time, as the
// gemv tuning reads it: /proc/stat's first line parsed, and a child process
// spinning while the meter runs seen as most of a core.
#include "engine/cpu/host_load.h"

#include <chrono>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace engine;

TEST(HostLoad, ParsesTheBusyFieldsOfProcStatsFirstLine) {
  const double hz = double(sysconf(_SC_CLK_TCK));
  // user nice system idle iowait irq softirq steal guest guest_nice
  std::optional<double> s = parse_busy_cpu_seconds(
      "cpu  100 20 30 5000 70 5 6 7 40 0\ncpu0 50 10 15 2500 35 2 3 4 20 0\n");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(*s, (100 + 20 + 30 + 5 + 6 + 7) / hz); // not idle, iowait
  EXPECT_FALSE(parse_busy_cpu_seconds(""));
  EXPECT_FALSE(parse_busy_cpu_seconds("cpu0 1 2 3 4 5 6 7 8\n"));
  EXPECT_FALSE(parse_busy_cpu_seconds("cpu  1 2 3\n"));
  EXPECT_FALSE(parse_busy_cpu_seconds("cpu  1 2 x 4 5 6 7 8\n"));
}

TEST(HostLoad, AnotherProcessSpinningIsSeen) {
  const auto spin = [](double seconds) {
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
    }
  };
  HostLoadMeter meter;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    spin(0.6);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  std::optional<double> other = meter.other_cores();
  ASSERT_TRUE(other);
  // The child kept a core busy for the whole wait: most of a core, less
  // where it shared one (ctest runs two tests at once on two cores).
  EXPECT_GT(*other, 0.3);
  EXPECT_LT(*other, double(sysconf(_SC_NPROCESSORS_ONLN)) + 0.5);
}
