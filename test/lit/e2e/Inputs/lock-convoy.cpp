// Two threads take turns on one mutex: each call of convoy::locked_update
// holds it for 2 us of work; convoy::free_work does 2 us without it.
#include <cstdio>
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
namespace convoy {
__attribute__((noinline)) void locked_update() {
  pthread_mutex_lock(&m);
  spin(2000);
  pthread_mutex_unlock(&m);
}
__attribute__((noinline)) void free_work() { spin(2000); }
} // namespace convoy
int main() {
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
