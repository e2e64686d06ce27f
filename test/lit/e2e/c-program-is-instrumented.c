// A C program (not C++) built with perfcc records like C++ does: plain C
// names, static functions, calls through a function pointer, each span with
// its file and line.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nparse\ncheck_token\napply\n' > %t/targets
// RUN: %perfcc -O1 -g -std=c11 --perf-targets=%t/targets %s -o %t/cprog
// RUN: env PERFCC_OUT=%t/out %t/cprog | FileCheck %s --check-prefix=OUT
// RUN: %tracecheck trace --thread-name-only --collapse %t/out/cprog.*.trace.json | FileCheck %s
// RUN: %tracecheck summary %t/out/cprog.*.summary.json | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=FILE < %t/out/cprog.*.summary.json

// OUT: tokens 3

// CHECK:      trace: 8 spans, 1 threads, dropped=0
// CHECK-NEXT: thread cprog
// CHECK-NEXT:   main
// CHECK-NEXT:     parse
// CHECK-NEXT:       check_token x3
// CHECK-NEXT:     apply x3

// SUMMARY:      function apply calls=3
// SUMMARY-NEXT: function check_token calls=3
// SUMMARY-NEXT: function main calls=1
// SUMMARY-NEXT: function parse calls=1

#include <stdio.h>

static volatile int sink;
// FILE: "name":"check_token","mangled":"check_token","file":"{{.*}}/c-program-is-instrumented.c","line":[[#@LINE+1]],
static __attribute__((noinline)) int check_token(const char *s) {
  sink = s[0];
  return s[0] != '\0';
}

__attribute__((noinline)) int parse(const char **tokens, int n) {
  int ok = 0;
  for (int i = 0; i < n; ++i)
    ok += check_token(tokens[i]);
  return ok;
}

__attribute__((noinline)) void apply(int v) { sink = v; }

int main(void) {
  const char *tokens[] = {"a", "bb", "ccc"};
  void (*fn)(int) = apply;
  int n = parse(tokens, 3);
  for (int i = 0; i < n; ++i)
    fn(i);
  printf("tokens %d\n", n);
  return 0;
}
