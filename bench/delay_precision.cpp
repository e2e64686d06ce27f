// Requested against delivered delay, 50 ns to 1 ms: the speed bump's spin
// (perfrt_delay.cpp) run directly, each requested delay many times. Reports
// per delay the median and p99 delivered and the median error; the goal is a
// median within 5% or 30 ns of the request, whichever is larger.
// Run by ctest -L bench (bench-delay-precision) or directly.
#include "perfrt_clock.h"
#include "perfrt_delay.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace perfrt;

namespace {

void setUpClock() {
  static bool done = false;
  if (done)
    return;
  clockInit(ClockChoice::Auto);
  clockCalibrate(); // a 20 ms baseline: ticks per ns for the requests
  done = true;
}

void BM_SpinDelay(benchmark::State &state) {
  setUpClock();
  const uint64_t requestedNs = uint64_t(state.range(0));
  const double nsPerTick = gClock.useTsc ? gClock.nsPerTick : 1.0;
  const uint64_t ticks =
      uint64_t(std::llround(double(requestedNs) / nsPerTick));
  std::vector<double> delivered;
  delivered.reserve(1 << 16);
  for (auto _ : state)
    delivered.push_back(double(spinTicks(ticks)) * nsPerTick);
  std::sort(delivered.begin(), delivered.end());
  double median = delivered[delivered.size() / 2];
  double p99 = delivered[delivered.size() * 99 / 100];
  double error = median - double(requestedNs);
  double allowed = std::max(0.05 * double(requestedNs), 30.0);
  state.counters["requested_ns"] = double(requestedNs);
  state.counters["median_ns"] = median;
  state.counters["p99_ns"] = p99;
  state.counters["median_error_ns"] = error;
  state.counters["within_goal"] = std::fabs(error) <= allowed ? 1 : 0;
}

} // namespace

BENCHMARK(BM_SpinDelay)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->MinTime(0.2);

BENCHMARK_MAIN();
