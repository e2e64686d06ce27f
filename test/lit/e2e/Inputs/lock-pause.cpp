// A thread holds a mutex while another runs pause::works (2 ms, the function
// a virtual speedup selects) beside it, and gives the mutex up once that call
// is over. Sped up 50%, it owes 1 ms by its unlock and pays it there. Prints
// the median time spent in the unlock over ROUNDS, relative to the 2 ms call.
// The holder waits for the call to end rather than timing its work against
// it: on a busy machine the two threads do not always run at once.
// Usage: lock-pause ROUNDS
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <vector>

#include "pause-timing.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  std::atomic<int> locked{0}, called{0}, done{0};
  std::vector<double> unlocks;
  std::thread holder([&] {
    for (int i = 0; i < rounds; ++i) {
      waitUntil(done, i); // the worker's last round is over
      pthread_mutex_lock(&m);
      locked.store(i + 1);
      waitUntil(called, i + 1);
      long long t0 = nowNs();
      pthread_mutex_unlock(&m);
      unlocks.push_back(double(nowNs() - t0) / 2e6);
    }
  });
  for (int i = 0; i < rounds; ++i) {
    waitUntil(locked, i + 1); // start once the holder has the mutex
    pause::works();
    called.store(i + 1);
    pthread_mutex_lock(&m); // after the holder's unlock: the round is over
    pthread_mutex_unlock(&m);
    done.store(i + 1);
  }
  holder.join();
  std::sort(unlocks.begin(), unlocks.end());
  std::printf("unlock %.2f of the call\n", unlocks[unlocks.size() / 2]);
  return 0;
}
