// Functions that never get probes, whatever the targets file says, each with
// its reason: naked, no_instrument_function (clang marks it through
// -finstrument-functions-after-inlining, which perfcc passes), and
// xray_never_instrument, and the runtime's own functions. The control,
// `instrumented`, does get probes: the skips are the attributes', not a pass
// that instruments nothing.
// RUN: %clangxx -O1 -finstrument-functions-after-inlining -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: printf '*:*\n' > %t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.targets %opt -passes=perf-consume-attrs,perf-instrument \
// RUN:   -S %t.ll -pass-remarks-missed=perf-instrument -pass-remarks=perf-instrument \
// RUN:   -o %t.out.ll 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.out.ll
// RUN: FileCheck %s --check-prefix=NODESC < %t.out.ll

// CHECK-DAG: not instrumented nakedFn: naked: the function has no prologue to probe
// CHECK-DAG: not instrumented noInstr: marked no_instrument_function
// CHECK-DAG: not instrumented xrayNever: marked xray_never_instrument
// CHECK-DAG: not instrumented __perfcc_helper: part of the perfcc runtime
// CHECK-DAG: remark: {{.*}}instrumented instrumented: selected by
// The consumed attributes are gone, so LLVM inserts no __cyg_profile_* calls.
// NODESC-NOT: instrument-function-entry-inlined
// NODESC-NOT: @__perfcc_desc.nakedFn
// NODESC-NOT: @__perfcc_desc.noInstr
// NODESC-NOT: @__perfcc_desc.xrayNever
// NODESC-NOT: @__perfcc_desc.__perfcc_helper
// IR: @__perfcc_desc.instrumented = private global
// IR-LABEL: define{{.*}} @instrumented(
// IR: call void @__perfcc_enter(

extern "C" __attribute__((naked)) void nakedFn() { __asm__("ret"); }
extern "C" __attribute__((no_instrument_function)) int noInstr(int x) {
  return x;
}
extern "C" [[clang::xray_never_instrument]] int xrayNever(int x) { return x; }
extern "C" int __perfcc_helper(int x) { return x; }
extern "C" int instrumented(int x) { return x; }
