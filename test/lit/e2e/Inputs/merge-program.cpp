// For perfctl merge's tests: `merge-program fork N` forks N children, child
// i making 10*(i+1) calls of child_work on a thread named child-i, while the
// parent makes 5 calls of parent_work and waits for them; `merge-program
// alone NAME CALLS` makes CALLS calls of NAME_work... of solo_work, for two
// processes started side by side.
#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void child_work(int i) { sink = sink + i; }
__attribute__((noinline)) void parent_work(int i) { sink = sink + 2 * i; }
__attribute__((noinline)) void solo_work(int i) { sink = sink + 3 * i; }

__attribute__((noinline)) void child(int index) {
  perf_thread_name(("child-" + std::to_string(index)).c_str());
  for (int i = 0; i < 10 * (index + 1); ++i)
    child_work(i);
}

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "alone") == 0) {
    perf_thread_name(argv[2]);
    for (int i = 0, n = std::atoi(argv[3]); i < n; ++i)
      solo_work(i);
    return 0;
  }
  int children = argc == 3 ? std::atoi(argv[2]) : 2;
  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      child(c);
      std::exit(0);
    }
  }
  for (int i = 0; i < 5; ++i)
    parent_work(i);
  for (int c = 0; c < children; ++c)
    wait(nullptr);
  return 0;
}
