// A thread waits for another without any call perfcc sees (a loop on an
// atomic), while the other runs pause::works (2 ms, the function a virtual
// speedup selects), then takes a mutex and gives it up. Sped up 50%, 1 ms
// accrues meanwhile. Undeclared, the wait looks like work: the waiter owes
// the 1 ms and pays it in the lock, half the call's time. Declared
// (perf_wait_begin/end around the wait, perf_wake before the store that ends
// it: pass "declared"), it is a wait on the other thread, and Coz's rule
// forgives what accrued until the wake: the lock takes no time. Prints the
// lock's median over ROUNDS relative to the 2 ms call. Usage: declared-wait
// ROUNDS [declared]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <thread>
#include <vector>

#include <perf/perf.h>

#include "pause-timing.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  bool declared = argc > 2 && std::strcmp(argv[2], "declared") == 0;
  std::atomic<int> started{0}, done{0};
  std::vector<double> takes;
  std::thread waiter([&] {
    perf_thread_name("waiter");
    for (int i = 0; i < rounds; ++i) {
      started.store(i + 1);
      if (declared)
        perf_wait_begin();
      waitUntil(done, i + 1);
      if (declared)
        perf_wait_end();
      long long t0 = nowNs();
      pthread_mutex_lock(&m);
      takes.push_back(double(nowNs() - t0) / 2e6);
      pthread_mutex_unlock(&m);
    }
  });
  for (int i = 0; i < rounds; ++i) {
    waitUntil(started, i + 1);
    pause::works();
    if (declared)
      perf_wake();
    done.store(i + 1);
  }
  waiter.join();
  std::sort(takes.begin(), takes.end());
  std::printf("%s: lock %.2f of the call\n",
              declared ? "declared" : "undeclared", takes[takes.size() / 2]);
  return 0;
}
