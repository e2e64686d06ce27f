// A thread waits, holding no mutex, while another runs pause::works (2 ms,
// the function a virtual speedup selects), then takes a mutex and gives it
// up. Sped up 50%, it owes 1 ms when it takes the mutex: paid there, taking
// the mutex takes half the call's time and giving it up none. Prints both
// medians over ROUNDS, relative to the 2 ms call. Usage: lock-pause-before
// ROUNDS
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <vector>

#include "pause-timing.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  std::atomic<int> started{0}, done{0};
  std::vector<double> takes, unlocks;
  std::thread taker([&] {
    for (int i = 0; i < rounds; ++i) {
      started.store(i + 1);
      waitUntil(done, i + 1); // the call is over: nothing more accrues
      long long t0 = nowNs();
      pthread_mutex_lock(&m);
      long long t1 = nowNs();
      pthread_mutex_unlock(&m);
      takes.push_back(double(t1 - t0) / 2e6);
      unlocks.push_back(double(nowNs() - t1) / 2e6);
    }
  });
  for (int i = 0; i < rounds; ++i) {
    waitUntil(started, i + 1);
    pause::works();
    done.store(i + 1);
  }
  taker.join();
  std::printf("lock %.2f of the call, unlock %.2f\n", median(takes),
              median(unlocks));
  return 0;
}
