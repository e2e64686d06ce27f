// A thread holds a mutex for 2 ms of work while another runs pause::works
// (2 ms, the function a virtual speedup selects) beside it. Sped up 50%, the
// holder owes about 1 ms by its unlock: paid before the unlock, it holds the
// mutex about 3 ms. Prints the median hold over ROUNDS, relative to the 2 ms
// of work. Usage: lock-pause ROUNDS
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <time.h>
#include <vector>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long long nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}
static void spin(long long ns) {
  long long end = nowNs() + ns;
  while (nowNs() < end) {
  }
}

namespace pause {
__attribute__((noinline)) void works() { spin(2000000); }
} // namespace pause

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  std::atomic<int> locked{0}, done{0};
  std::vector<double> holds;
  std::thread holder([&] {
    for (int i = 0; i < rounds; ++i) {
      while (done.load() < i) // the worker's last round is over
      {
      }
      pthread_mutex_lock(&m);
      long long t0 = nowNs();
      locked.store(i + 1);
      spin(2000000);
      pthread_mutex_unlock(&m);
      holds.push_back(double(nowNs() - t0) / 2e6);
    }
  });
  for (int i = 0; i < rounds; ++i) {
    while (locked.load() <= i) // start once the holder has the mutex
    {
    }
    pause::works();
    pthread_mutex_lock(&m); // after the holder's unlock: the round is over
    pthread_mutex_unlock(&m);
    done.store(i + 1);
  }
  holder.join();
  std::sort(holds.begin(), holds.end());
  std::printf("hold %.2f of the work\n", holds[holds.size() / 2]);
  return 0;
}
