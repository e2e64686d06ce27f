// Ground truth 3: a host thread launches work items to a simulated device
// thread through a queue, with a fixed host cost per item (launch) smaller
// than the device's cost per item (device_execute): the shape of a GPU fed
// by its launcher. While the host keeps the queue non-empty the device sets
// the pace and host code does not matter; once a bump makes launch slower
// than device_execute, the device drains its queue, starves, and every
// further ns of host time counts: a threshold. device_execute is on the
// critical path throughout (linear).
// Variants for the real answer: -DLAUNCH_PERCENT=90 (70, 50) does that share
// of launch's work, -DDEVICE_PERCENT of device_execute's.
// Throughput: progress point "items" (one per executed item).
// Usage: launcher_device [items]
#include "bounded_queue.h"
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

// The device takes four times the host's time per item: the host's slack,
// three times its own cost, keeps the flat stretch wide on a faster CPU and
// on a machine where the threads sometimes take turns.
constexpr uint64_t HostUnits = 20;
constexpr uint64_t DeviceUnits = 80;
constexpr size_t Capacity = 8;

#ifndef LAUNCH_PERCENT
#define LAUNCH_PERCENT 100
#endif
#ifndef DEVICE_PERCENT
#define DEVICE_PERCENT 100
#endif

namespace causal {

__attribute__((noinline)) uint64_t launch(uint64_t i) {
  return burnPercent(HostUnits, LAUNCH_PERCENT, i);
}
__attribute__((noinline)) uint64_t device_execute(uint64_t v) {
  return burnPercent(DeviceUnits, DEVICE_PERCENT, v);
}

} // namespace causal

int main(int argc, char **argv) {
  using namespace causal;
  int items = argc > 1 ? std::atoi(argv[1]) : 20000;
  uint64_t total = 0;
  BoundedQueue queue(Capacity);
  std::thread device([&] {
    perf_thread_name("device");
    for (uint64_t v; queue.pop(v);) {
      total += device_execute(v);
      PERF_PROGRESS("items");
    }
  });
  perf_thread_name("host");
  for (int i = 0; i < items; ++i)
    queue.push(launch(uint64_t(i)));
  queue.close();
  device.join();
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
