// After a returns_twice call (setjmp) the runtime is told which frame is live
// again, so frames a longjmp skipped are closed.
// RUN: %clang -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s
#include <setjmp.h>

jmp_buf env;
void work(void);

// CHECK-LABEL: define {{.*}} @guarded(
// CHECK:         call i32 @_setjmp(
// CHECK-NEXT:    %perfcc.enabled{{[0-9]*}} = load
// CHECK:         call void @__perfcc_resync({{.*}}@__perfcc_desc.guarded
int guarded(void) {
  if (setjmp(env))
    return 1;
  work();
  return 0;
}
