// Two threads take turns on one mutex: each call of convoy::locked_update
// holds it for 2 us of work; convoy::free_work does 2 us without it.
// First, one certain wait for the mutex: whether the two threads' turns ever
// collide depends on the scheduler (a CI machine running other tests beside
// it once saw none), so convoy::hold_until_waited keeps the mutex until the
// kernel reports the other thread asleep in convoy::wait_for_holder's lock.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <pthread.h>
#include <string>
#include <thread>
#include <time.h>
#include <unistd.h>
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
namespace convoy {
__attribute__((noinline)) void locked_update() {
  pthread_mutex_lock(&m);
  spin(2000);
  pthread_mutex_unlock(&m);
}
__attribute__((noinline)) void free_work() { spin(2000); }

static std::atomic<int> waiterTid{0};
// The state letter of /proc/self/task/TID/stat: 'S' while blocked in a futex.
static char threadState(int tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() ? line[paren + 2]
                                                               : '?';
}
__attribute__((noinline)) void hold_until_waited() {
  pthread_mutex_lock(&m);
  int tid;
  while ((tid = waiterTid.load()) == 0) {
  }
  // Bounded, so a kernel without /proc cannot hang the test: 5 s.
  long long giveUp = nowNs() + 5000000000ll;
  while (threadState(tid) != 'S' && nowNs() < giveUp) {
  }
  pthread_mutex_unlock(&m);
}
__attribute__((noinline)) void wait_for_holder() {
  waiterTid.store(gettid());
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
}
} // namespace convoy
int main() {
  {
    std::thread holder(convoy::hold_until_waited);
    // The holder must own the mutex before the waiter asks for it.
    while (pthread_mutex_trylock(&m) == 0) {
      pthread_mutex_unlock(&m);
    }
    std::thread waiter(convoy::wait_for_holder);
    holder.join();
    waiter.join();
  }
  long long t0 = nowNs();
  auto body = [] {
    for (int i = 0; i < 2000; ++i) {
      convoy::locked_update();
      convoy::free_work();
    }
  };
  std::thread a(body), b(body);
  a.join();
  b.join();
  std::printf("elapsed_ms=%.1f\n", (nowNs() - t0) / 1e6);
}
