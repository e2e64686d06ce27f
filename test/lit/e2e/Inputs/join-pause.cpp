// The main thread owes a virtual speedup's pause when it joins: a worker ran
// pause::works (2 ms, the function the targets select) while main waited
// for it without a probe. Then main joins a thread that sleeps on: with
// `late` it is still asleep for 20 ms, which covers the 1 ms main owes at
// 50%; with `done` it has already ended, and main pays the 1 ms after the
// join. Prints how long the join took, in ms, median of ROUNDS rounds.
// Usage: join-pause late|done ROUNDS
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "pause-timing.h"

int main(int argc, char **argv) {
  bool late = argc > 1 && std::strcmp(argv[1], "late") == 0;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<double> joins;
  for (int i = 0; i < rounds; ++i) {
    std::atomic<int> worked{0}, slept{0};
    std::thread sleeper([&] {
      timespec ts{0, late ? 25000000 : 0};
      nanosleep(&ts, nullptr);
      slept.store(1);
    });
    std::thread worker([&] {
      pause::works();
      worked.store(1);
    });
    waitUntil(worked, 1); // no probe here: main owes what works() accrued
    if (!late)
      waitUntil(slept, 1);
    long long t0 = nowNs();
    sleeper.join();
    joins.push_back(double(nowNs() - t0) / 1e6);
    worker.join(); // ended: what main owes is settled by now
  }
  std::sort(joins.begin(), joins.end());
  std::printf("join %.1f ms\n", joins[joins.size() / 2]);
  return 0;
}
