// When the trace cannot be written at exit, the spill is not removed: the
// exit line names it and the command that recovers it, and perfctl trace
// recover turns it into a trace. The program stands in for a trace that
// cannot be written (a full disk, a file in the way) by putting a folder
// where its trace would go. It makes 100,000 calls, then waits for the
// writer thread to spill the full chunks.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'work\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/blocked
// RUN: env PERFCC_OUT=%t/out %t/blocked 2> %t/err
// RUN: FileCheck %s --check-prefix=EXIT < %t/err
// RUN: mkdir %t/rec && %perfctl trace recover %t/out/.blocked.*.spans --out %t/rec > %t/rec.out
// RUN: FileCheck %s --check-prefix=RECOVER < %t/rec.out
// RUN: %tracecheck summary %t/rec/blocked.*.summary.json | FileCheck %s --check-prefix=SUMMARY

// EXIT:      perfcc: could not write the trace; wrote {{.*}}/blocked.{{[0-9]+}}.summary.json
// EXIT-NEXT: perfcc: the calls written to disk during the run are in [[SPILL:.*/\.blocked\.[0-9]+\.spans]]; recover them with: perfctl trace recover [[SPILL]]

// RECOVER: perfctl: recovered {{[1-9][0-9]*}} calls of blocked

// SUMMARY: function work calls={{[1-9][0-9]*}}

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void work(int v) { sink = v; }

int main() {
  for (int i = 0; i < 100000; ++i)
    work(i);
  usleep(300 * 1000); // the writer thread looks at its queue every 50 ms
  std::string out = std::getenv("PERFCC_OUT");
  std::string trace =
      out + "/blocked." + std::to_string(getpid()) + ".trace.json";
  return mkdir(trace.c_str(), 0755);
}
