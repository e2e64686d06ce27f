// For perfctl filter's tests: work split over functions whose calls are
// tiny and many (tiny_add: a few ns, 4M calls), mid-sized (mix: about 2 us,
// 4,000 calls) and large (block: about 1 ms, 8 calls), on the main thread
// and, with `threads`, on a second thread that makes only mid-sized calls.
// Prints its wall time: `wall_ms N`.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long tiny_add(unsigned long a) {
  return a * 2654435761u + 1;
}

__attribute__((noinline)) unsigned long mix(unsigned long seed) {
  unsigned long h = seed;
  for (int i = 0; i < 1000; ++i)
    h = (h ^ (h >> 7)) * 0x9E3779B97F4A7C15ull + unsigned(i);
  return h;
}

__attribute__((noinline)) void block(int n) {
  unsigned long h = 0;
  for (int i = 0; i < 1000; ++i)
    h += tiny_add(h + i) + (i % 2 ? mix(h) : 0) * 0;
  for (int i = 0; i < 500; ++i)
    h += mix(h + n);
  sink = sink + h;
}

__attribute__((noinline)) void side_work() {
  unsigned long h = 0;
  for (int i = 0; i < 2000; ++i)
    h += mix(h + i);
  sink = sink + h;
}

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  std::thread side;
  if (argc > 1 && std::strcmp(argv[1], "threads") == 0)
    side = std::thread(side_work);
  unsigned long h = 0;
  for (int round = 0; round < 8; ++round) {
    block(round);
    for (int i = 0; i < 500000; ++i)
      h = tiny_add(h);
  }
  sink = sink + h;
  if (side.joinable())
    side.join();
  auto ms = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  std::printf("wall_ms %.1f\n", ms);
  return 0;
}
