; The entry probe follows the entry block's allocas, and every return gets an
; exit probe; each probe is guarded by a load of the descriptor's `enabled`.
; RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %s | FileCheck %s

; CHECK-LABEL: define i32 @three(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %slot = alloca i32
; CHECK-NEXT:    %perfcc.enabled = load i32, {{.*}}@__perfcc_desc.three
; CHECK-NEXT:    [[ON:%.*]] = icmp ne i32 %perfcc.enabled, 0
; CHECK-NEXT:    br i1 [[ON]], label
; CHECK:         call void @__perfcc_enter({{.*}}@__perfcc_desc.three
; CHECK-COUNT-3: call void @__perfcc_exit({{.*}}@__perfcc_desc.three
; CHECK-NOT:     call void @__perfcc_exit
; CHECK:       }
define i32 @three(i32 %x) {
entry:
  %slot = alloca i32
  %big = icmp sgt i32 %x, 10
  br i1 %big, label %one, label %next
one:
  ret i32 1
next:
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %two, label %other
two:
  ret i32 2
other:
  ret i32 %x
}
