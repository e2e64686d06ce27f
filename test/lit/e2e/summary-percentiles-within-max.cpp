// The summary's percentiles never exceed the largest call they summarize:
// p50 <= p99 <= max for every function and thread, whatever bucket the
// histogram put the calls in (here 24 functions called once each, so each
// one's p50 and p99 are its single call, which is also its max).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'main\nf*\n' > %t/targets
// RUN: %perfcc -O1 -g --perf-targets=%t/targets %s -o %t/pct
// RUN: env PERFCC_OUT=%t/out %t/pct
// RUN: %tracecheck summary --strict %t/out/pct.*.summary.json | FileCheck %s

// CHECK: function f0 calls=1
// CHECK: function f23 calls=1

volatile int sink;

template <int N> __attribute__((noinline)) void f() {
  for (int i = 0; i < 40 * (N + 1); ++i)
    sink = i;
}

#define F(n) extern "C" __attribute__((noinline)) void f##n() { f<n>(); }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11)
F(12) F(13) F(14) F(15) F(16) F(17) F(18) F(19) F(20) F(21) F(22) F(23)

int main() {
  f0(); f1(); f2(); f3(); f4(); f5(); f6(); f7(); f8(); f9(); f10(); f11();
  f12(); f13(); f14(); f15(); f16(); f17(); f18(); f19(); f20(); f21(); f22(); f23();
  return 0;
}
