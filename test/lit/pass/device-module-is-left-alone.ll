; GPU modules get no probes: the runtime lives on the host.
; RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %s | FileCheck %s
; CHECK-NOT: __perfcc
target triple = "nvptx64-nvidia-cuda"

define i32 @kernel_helper(i32 %x) {
  ret i32 %x
}
