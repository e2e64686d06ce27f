// A function whose exceptions use funclets (Windows C++ EH: cleanuppad,
// catchswitch) is left alone, with its reason: the unwind probe needs a
// landingpad-style cleanup that funclet EH does not have. The control, a
// function of the same module without a personality, gets probes.
// RUN: %clangxx --target=x86_64-pc-windows-msvc -fcxx-exceptions -fexceptions -O1 \
// RUN:   -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: printf '*:*\n' > %t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.targets %opt -passes=perf-instrument -S %t.ll \
// RUN:   -pass-remarks-missed=perf-instrument -pass-remarks=perf-instrument -o %t.out.ll 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.out.ll

// CHECK-DAG: not instrumented usesFunclets: funclet-based (Windows) exception handling is not supported
// CHECK-DAG: instrumented control: selected by

// IR-LABEL: define {{.*}}@usesFunclets(
// IR-NOT: call void @__perfcc_
// IR-LABEL: define {{.*}}@control(
// IR: call void @__perfcc_enter(

struct Guard {
  ~Guard();
};
extern "C" void mayThrow();
extern "C" void usesFunclets() {
  Guard g; // its destructor runs in a cleanuppad when mayThrow throws
  mayThrow();
}
extern "C" int control(int x) { return x; }
