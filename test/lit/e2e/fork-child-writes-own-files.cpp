// After fork, parent and child each write their own trace and summary, named
// with their own pids. The child's trace holds only the child's spans: no
// span the parent finished before the fork (`before`) and none the parent
// records afterwards (`parent_work`); its tree still nests under the frames
// it inherited (main, spawn).
// UNSUPPORTED: tsan
// RUN lines and checks are lit's: one command or check a line.
// clang-format off
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nbefore\nspawn\nchild_work\nparent_work\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/forker
// RUN: env PERFCC_OUT=%t/out %t/forker > %t/pids
// RUN: %tracecheck files %t/out | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=PIDS < %t/pids
// RUN: child=$(sed -n 's/^child=//p' %t/pids) && parent=$(sed -n 's/^parent=//p' %t/pids) && \
// RUN:   %tracecheck trace --thread-name-only %t/out/forker.$child.trace.json > %t/child.view && \
// RUN:   %tracecheck trace --thread-name-only %t/out/forker.$parent.trace.json > %t/parent.view && \
// RUN:   %tracecheck summary %t/out/forker.$child.summary.json > %t/child.summary
// RUN: FileCheck %s --check-prefix=CHILD < %t/child.view
// RUN: FileCheck %s --check-prefix=PARENT < %t/parent.view
// RUN: FileCheck %s --check-prefix=CHILD-SUMMARY < %t/child.summary

// FILES:      forker.PID.summary.json
// FILES-NEXT: forker.PID.summary.json
// FILES-NEXT: forker.PID.trace.json
// FILES-NEXT: forker.PID.trace.json

// PIDS:      child={{[1-9][0-9]*$}}
// PIDS-NEXT: parent={{[1-9][0-9]*$}}

// CHILD:      trace: 3 spans, 1 threads, dropped=0
// CHILD-NEXT: thread child
// CHILD-NEXT:   main
// CHILD-NEXT:     spawn
// CHILD-NEXT:       child_work

// PARENT:      trace: 4 spans, 1 threads, dropped=0
// PARENT-NEXT: thread forker
// PARENT-NEXT:   main
// PARENT-NEXT:     before
// PARENT-NEXT:     spawn
// PARENT-NEXT:       parent_work

// CHILD-SUMMARY:      function child_work calls=1
// CHILD-SUMMARY-NEXT: function main calls=1
// CHILD-SUMMARY-NEXT: function spawn calls=1
// CHILD-SUMMARY-NEXT: dropped spans=0 depth_overflows=0 unmatched_exits=0 abandoned_frames=0
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
    child_work();
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  parent_work();
  std::printf("child=%d\nparent=%d\n", int(pid), int(getpid()));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main() {
  before();
  return spawn();
}
