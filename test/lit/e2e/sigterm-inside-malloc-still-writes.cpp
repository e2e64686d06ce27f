// SIGTERM that lands while the program is inside malloc: the runtime still
// writes its trace and summary and the process dies of SIGTERM, every time.
// The output is written by the runtime's own thread, not in the handler: a
// handler that allocated would wait forever for the allocator's lock that
// the interrupted thread holds (glibc's arena lock; this program holds it
// most of the time). Ten runs, each killed after 50 ms, each within 20 s.
// When the handler wrote the output itself, 5 of 6 such runs hung here until
// killed (2026-11-26).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nchurn\n' > %t/targets
// RUN: %perfcc -O1 -g -pthread --perf-targets=%t/targets %s -o %t/churn
// RUN: for i in 1 2 3 4 5 6 7 8 9 10; do \
// RUN:   env PERFCC_OUT=%t/out$i timeout -s KILL 20 %t/churn 2> %t/err$i; echo "rc=$?"; \
// RUN: done > %t/rcs
// RUN: FileCheck %s --check-prefix=RC < %t/rcs
// RUN: cat %t/err* | FileCheck %s --check-prefix=ERR
// RUN: for i in 1 2 3 4 5 6 7 8 9 10; do %tracecheck summary %t/out$i/churn.*.summary.json; done \
// RUN:   | FileCheck %s --check-prefix=SUMMARY

// RC-COUNT-10: rc=143
// RC-NOT: rc=

// ERR-COUNT-10: perfcc: wrote {{.*}}/churn.{{[0-9]+}}.trace.json and {{.*}}/churn.{{[0-9]+}}.summary.json

// SUMMARY-COUNT-10: function churn calls=1{{$}}

#include <csignal>
#include <cstdlib>
#include <pthread.h>
#include <unistd.h>

namespace {
volatile bool gStarted = false;
void *volatile gBlock; // the compiler must not drop the allocation
} // namespace

/// Allocates and frees blocks big enough to bypass the per-thread cache, so
/// the thread is inside the allocator, holding its lock, most of the time.
__attribute__((noinline)) void churn() {
  for (unsigned i = 0;; ++i) {
    gBlock = std::malloc(16384 + (i * 64 & 4095));
    std::free(gBlock);
    gStarted = true;
  }
}

void *run(void *) {
  churn();
  return nullptr;
}

int main() {
  pthread_t worker;
  pthread_create(&worker, nullptr, run, nullptr);
  while (!gStarted)
    usleep(1000);
  usleep(50000);
  // To the allocating thread, so the handler runs there, inside malloc.
  pthread_kill(worker, SIGTERM);
  pause();
}
