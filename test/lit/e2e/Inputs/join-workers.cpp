// A main thread that starts a worker per round and joins it; the worker
// runs joined::work (about 200 us of spinning) ten times a round; a round
// ends with a progress point on the main thread, where a thread pays the
// delays it owes. Usage: join-workers ROUNDS
#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <time.h>

static long long nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

namespace joined {
__attribute__((noinline)) void work() {
  long long end = nowNs() + 200000;
  while (nowNs() < end) {
  }
}
} // namespace joined

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  for (int r = 0; r < rounds; ++r) {
    std::thread worker([] {
      for (int i = 0; i < 10; ++i)
        joined::work();
    });
    worker.join();
    PERF_PROGRESS("rounds");
  }
  std::puts("done");
  return 0;
}
