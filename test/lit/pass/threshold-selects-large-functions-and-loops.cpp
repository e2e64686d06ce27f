// Without a targets file a function gets probes when it has at least
// PERFCC_BUILD_THRESHOLD IR instructions or contains a loop (XRay's rule).
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=20 %opt -passes=perf-instrument -S %t.ll \
// RUN:   -pass-remarks=perf-instrument -pass-remarks-missed=perf-instrument \
// RUN:   -o /dev/null 2>&1 | FileCheck %s
// The default threshold (100) skips `large` too.
// RUN: %opt -passes=perf-instrument -S %t.ll -pass-remarks-missed=perf-instrument \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT

// CHECK-DAG: remark: {{.*}}not instrumented small: {{[0-9]+}} IR instructions < threshold 20 and no loop
// CHECK-DAG: remark: {{.*}}instrumented large: {{[0-9]+}} IR instructions >= threshold 20
// CHECK-DAG: remark: {{.*}}instrumented looping: contains a loop
// DEFAULT-DAG: not instrumented large: {{[0-9]+}} IR instructions < threshold 100 and no loop
// DEFAULT-DAG: not instrumented small:
// DEFAULT-NOT: not instrumented looping

int small(int x) { return x + 1; }

int large(int a, int b, int c, int d) {
  int r = a * b + c * d;
  r ^= (a << 3) + (b >> 2);
  r += (c - d) * (a + b);
  r ^= (r << 7) | (r >> 5);
  r += a * a + b * b + c * c + d * d;
  r ^= (a & b) | (c & d);
  return r * 31 + (r >> 9);
}

int looping(volatile int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i];
  return s;
}
