// Ground truth 11: time off the CPU in a pipeline (a second program for the
// class of sleepy.cpp). A reader thread waits for each input in
// wait_for_input(): 1.5 ms in ppoll on a pipe that never becomes readable (a
// device or socket read that times out, in another system call than
// sleepy's nanosleep), then hands the item to a decoder thread through the
// bounded queue; decode_input() takes 200 us a item and is slack. The
// reader's wait sets the pace (progress point "items", counted by the
// decoder), so all of it counts though the CPU is idle meanwhile. The
// reader's timer slack is 1 ns, so the wait lasts what it asks for.
// Variants for the real answer: -DWAIT_PERCENT=90 (70, 50) waits that share
// of wait_for_input's time.
// Usage: sleepy_pipeline [items]
#include "bounded_queue.h"
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <poll.h>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>

#ifndef WAIT_PERCENT
#define WAIT_PERCENT 100
#endif

constexpr long WaitNs = 1500000;
constexpr uint64_t DecodeUnits = 2000;
constexpr size_t Capacity = 16;

namespace causal {

__attribute__((noinline)) void wait_for_input(int fd) {
  pollfd input{fd, POLLIN, 0};
  timespec wait{0, WaitNs * WAIT_PERCENT / 100};
  ppoll(&input, 1, &wait, nullptr);
}

__attribute__((noinline)) uint64_t decode_input(uint64_t i) {
  return burn(DecodeUnits, i);
}

} // namespace causal

int main(int argc, char **argv) {
  using namespace causal;
  int items = argc > 1 ? std::atoi(argv[1]) : 200;
  int never[2];
  if (pipe(never) != 0) {
    std::perror("sleepy_pipeline: pipe");
    return 1;
  }
  uint64_t total = 0;
  BoundedQueue queue(Capacity);
  std::thread reader([&] {
    perf_thread_name("reader");
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    for (int i = 0; i < items; ++i) {
      wait_for_input(never[0]);
      queue.push(uint64_t(i));
    }
    queue.close();
  });
  std::thread decoder([&] {
    perf_thread_name("decoder");
    for (uint64_t v; queue.pop(v);) {
      total += decode_input(v);
      PERF_PROGRESS("items");
    }
  });
  reader.join();
  decoder.join();
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
