// Threads that make a few calls and then wait never fill a chunk: without
// the writer's checkpoint their calls stayed in memory and `kill -9` lost
// every one. Four threads make 7, 10, 20 and 30 calls, say so, and block;
// the run is killed 4 s later (a checkpoint takes calls stored 1 s ago at
// the latest, looking every 250 ms), and `perfctl trace recover` finds each
// thread's calls, all of them, once. The same with the flight recorder
// (PERFCC_TRACE_KEEP=last), whose ring slots take the pieces.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'work\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/quiet -lpthread
// RUN: env PERFCC_OUT=%t/out timeout -s KILL 4 %t/quiet > %t/ready || true
// RUN: FileCheck %s --check-prefix=READY < %t/ready
// RUN: %perfctl trace recover %t/out/.quiet.*.spans | FileCheck %s --check-prefix=RECOVER
// RUN: %tracecheck summary --threads %t/out/quiet.*.summary.json | FileCheck %s --check-prefix=COUNTS
//
// RUN: env PERFCC_OUT=%t/ring PERFCC_TRACE_KEEP=last PERFCC_TRACE_MAX_MB=4 timeout -s KILL 4 %t/quiet > %t/ready-ring || true
// RUN: FileCheck %s --check-prefix=READY < %t/ready-ring
// RUN: %perfctl trace recover %t/ring/.quiet.*.spans | FileCheck %s --check-prefix=RECOVER
// RUN: %tracecheck summary --threads %t/ring/quiet.*.summary.json | FileCheck %s --check-prefix=COUNTS

// READY: made 67 calls

// RECOVER: perfctl: recovered 67 calls of quiet

// COUNTS:      function work calls=67
// COUNTS-NEXT: thread quiet calls=7
// COUNTS-NEXT: thread quiet-10 calls=10
// COUNTS-NEXT: thread quiet-20 calls=20
// COUNTS-NEXT: thread quiet-30 calls=30

#include <atomic>
#include <chrono>
#include <cstdio>
#include <pthread.h>
#include <string>
#include <thread>
#include <unistd.h>

std::atomic<int> done{0};

__attribute__((noinline)) void work() {
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void makeCalls(int calls) {
  for (int i = 0; i < calls; ++i)
    work();
  done.fetch_add(calls);
}

int main() {
  for (int calls : {10, 20, 30})
    std::thread([calls] {
      pthread_setname_np(pthread_self(),
                         ("quiet-" + std::to_string(calls)).c_str());
      makeCalls(calls);
      for (;;)
        pause(); // alive, its chunk live, until killed
    }).detach();
  makeCalls(7);
  while (done.load() != 67)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::printf("made %d calls\n", done.load());
  std::fflush(stdout);
  for (;;)
    pause();
}
