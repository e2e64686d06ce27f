// Stress: fork from a multi-threaded program. WORKERS threads call
// stress::busy() (about 2 us) in a loop while the main thread forks CHILDREN
// times; each child (only the forking thread survives a fork) calls
// stress::in_child() CALLS times and exits. The parent's files count the
// parent's calls and each child's files, named with its own pid, count its own:
// nothing of the parent's in a child, no lock left held by a thread that is
// gone. Prints the parent's pid and counts; each child's count is CALLS.
//
// Usage: fork_threads [WORKERS] [CHILDREN] [CALLS]
#include <perf/perf.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace stress {
std::atomic<bool> stop{false};
volatile long sink;
// About 2 us of work: busy, but not faster than the writer thread can take
// its spans (a loop of empty calls would outrun it, and drops are counted,
// not a fault, but they are not what this test is about).
__attribute__((noinline)) void busy(long i) {
  for (int k = 0; k < 2000; ++k)
    sink = i + k;
}
__attribute__((noinline)) void in_child(long i) { sink = i; }
} // namespace stress

int main(int argc, char **argv) {
  int workers = argc > 1 ? std::atoi(argv[1]) : 4;
  int children = argc > 2 ? std::atoi(argv[2]) : 50;
  long calls = argc > 3 ? std::atol(argv[3]) : 10000;
  std::vector<long> made(workers, 0);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&made, w] {
      long n = 0;
      while (!stress::stop.load(std::memory_order_relaxed))
        stress::busy(n++);
      made[w] = n;
    });
  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      for (long i = 0; i < calls; ++i)
        stress::in_child(i);
      std::exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "fork_threads: child %d failed\n", c);
      return 1;
    }
  }
  stress::stop = true;
  long total = 0;
  for (int w = 0; w < workers; ++w) {
    threads[w].join();
    total += made[w];
  }
  std::printf("pid %d busy %ld in_child 0\n", int(getpid()), total);
  return 0;
}
