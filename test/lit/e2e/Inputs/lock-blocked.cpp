// A thread that mostly waits for a mutex another thread holds, then works
// 100 us holding it (blocked::waits_then_works), and a function that sleeps
// (blocked::naps). Prints how long each spent working, blocked and asleep,
// measured here, for the test to compare with what a virtual speedup
// inserted. Usage: lock-blocked ROUNDS
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <time.h>

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
static long long workNs, blockedNs, sleptNs;
static std::atomic<int> rounds_held{0};

namespace blocked {
__attribute__((noinline)) void waits_then_works() {
  long long t0 = nowNs();
  pthread_mutex_lock(&m);
  long long t1 = nowNs();
  spin(100000);
  long long t2 = nowNs();
  pthread_mutex_unlock(&m);
  blockedNs += t1 - t0;
  workNs += t2 - t1;
}
__attribute__((noinline)) void naps() {
  long long t0 = nowNs();
  timespec ts{0, 500000};
  nanosleep(&ts, nullptr);
  sleptNs += nowNs() - t0;
}
} // namespace blocked

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
  std::thread holder([&] {
    for (int i = 0; i < rounds; ++i) {
      pthread_mutex_lock(&m);
      ++rounds_held;
      spin(2000000);
      pthread_mutex_unlock(&m);
      spin(300000);
    }
  });
  for (int i = 0; i < rounds; ++i) {
    while (rounds_held.load() <= i) // start each round once the holder
    {                               // has the mutex for it
    }
    blocked::waits_then_works();
    blocked::naps();
  }
  holder.join();
  std::printf("work_ns=%lld blocked_ns=%lld slept_ns=%lld\n", workNs, blockedNs,
              sleptNs);
  return 0;
}
