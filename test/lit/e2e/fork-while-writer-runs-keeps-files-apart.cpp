// The parent has recorded enough spans before fork that its writer thread is
// streaming them to its trace file: the child neither writes the parent's
// queued spans into its own trace nor corrupts the parent's file, and each
// trace is complete.
// UNSUPPORTED: tsan
// RUN lines and checks are lit's: one command or check a line.
// clang-format off
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nbefore\nspawn\nchild_work\nparent_work\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/forker
// RUN: env PERFCC_OUT=%t/out %t/forker > %t/pids
// RUN: child=$(sed -n 's/^child=//p' %t/pids) && parent=$(sed -n 's/^parent=//p' %t/pids) && \
// RUN:   %tracecheck trace --thread-name-only --collapse %t/out/forker.$child.trace.json > %t/child.view && \
// RUN:   %tracecheck trace --thread-name-only --collapse %t/out/forker.$parent.trace.json > %t/parent.view
// RUN: FileCheck %s --check-prefix=CHILD < %t/child.view
// RUN: FileCheck %s --check-prefix=PARENT < %t/parent.view

// CHILD:      trace: 1003 spans, 1 threads, dropped=0
// CHILD-NEXT: thread child
// CHILD-NEXT:   main
// CHILD-NEXT:     spawn
// CHILD-NEXT:       child_work x1001

// PARENT:      trace: 40003 spans, 1 threads, dropped=0
// PARENT-NEXT: thread forker
// PARENT-NEXT:   main
// PARENT-NEXT:     before x20000
// PARENT-NEXT:     spawn
// PARENT-NEXT:       parent_work x20001
// clang-format on

#include <perf/perf.h>

#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void before() { sink = 1; }
__attribute__((noinline)) void child_work() { sink = 2; }
__attribute__((noinline)) void parent_work() { sink = 3; }

__attribute__((noinline)) int spawn() {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    perf_thread_name("child");
    for (int i = 0; i <= 1000; ++i)
      child_work();
    return 0;
  }
  for (int i = 0; i <= 20000; ++i)
    parent_work();
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("child=%d\nparent=%d\n", int(pid), int(getpid()));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main() {
  for (int i = 0; i < 20000; ++i)
    before();
  return spawn();
}
