; An available_externally body is a copy of a definition elsewhere; the
; definition gets the probes, the copy never does.
; RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %s \
; RUN:   -pass-remarks-missed=perf-instrument -o /dev/null 2>&1 | FileCheck %s
; CHECK: not instrumented copy: available_externally: the body is a copy of a definition in another module

define available_externally i32 @copy(i32 %x) {
  ret i32 %x
}

define i32 @user(i32 %x) {
  %r = call i32 @copy(i32 %x)
  ret i32 %r
}
