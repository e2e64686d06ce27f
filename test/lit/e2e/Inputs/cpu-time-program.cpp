// Same wall time, different CPU time: cpu::compute spins 1 ms on the CPU,
// cpu::wait sleeps 1 ms, cpu::step calls both; 40 steps on the main thread
// and 40 on a second one.
#include <chrono>
#include <thread>
#include <time.h>

static long long nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

namespace cpu {
__attribute__((noinline)) void compute() {
  long long end = nowNs() + 1000000;
  while (nowNs() < end) {
  }
}
__attribute__((noinline)) void wait() {
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
__attribute__((noinline)) void step() {
  compute();
  wait();
}
__attribute__((noinline)) void steps() {
  for (int i = 0; i < 40; ++i)
    step();
}
} // namespace cpu

int main() {
  std::thread other(cpu::steps);
  cpu::steps();
  other.join();
}
