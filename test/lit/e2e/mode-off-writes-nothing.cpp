// PERFCC_MODE=off records nothing and writes nothing: no output folder, no
// files, nothing on stderr; the program runs as usual.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nwork\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/quiet
// RUN: env PERFCC_OUT=%t/out PERFCC_MODE=off %t/quiet 2>%t/err | FileCheck %s
// RUN: count 0 < %t/err
// RUN: test ! -e %t/out

// CHECK: worked 1000

#include <cstdio>

volatile int sink;
__attribute__((noinline)) void work(int i) { sink = i; }
int main() {
  int n = 0;
  for (; n < 1000; ++n)
    work(n);
  std::printf("worked %d\n", n);
  return 0;
}
