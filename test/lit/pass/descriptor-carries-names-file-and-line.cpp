// Each instrumented function gets a writable descriptor in section
// perfcc_desc: enabled and id (0 until the runtime registers it), the
// demangled qualified name without parameters, the mangled name, the file
// and line from debug info, and flags.
// RUN: %clangxx -O1 -g -S -emit-llvm %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s
// Without debug info: the module's source file and line 0.
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.nodebug.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.nodebug.ll | FileCheck %s --check-prefix=NODEBUG

// CHECK-DAG: @__perfcc_desc._ZN2ns6Widget4drawEi.name = private unnamed_addr constant [{{[0-9]+}} x i8] c"ns::Widget::draw\00"
// CHECK-DAG: @__perfcc_desc._ZN2ns6Widget4drawEi.mangled = private unnamed_addr constant {{.*}} c"_ZN2ns6Widget4drawEi\00"
// CHECK-DAG: @__perfcc_desc._ZN2ns6Widget4drawEi.file = private unnamed_addr constant {{.*}}descriptor-carries-names-file-and-line.cpp\00"
// CHECK-DAG: @__perfcc_desc._ZN2ns6Widget4drawEi = private global { i32, i32, {{.*}} } { i32 0, i32 0, {{.*}}, i32 [[@LINE+7]], i32 0 }, section "perfcc_desc", align 8
// NODEBUG-DAG: @__perfcc_desc._ZN2ns6Widget4drawEi.file = private unnamed_addr constant {{.*}}descriptor-carries-names-file-and-line.cpp\00"
// NODEBUG-DAG: @__perfcc_desc._ZN2ns6Widget4drawEi = private global {{.*}} i32 0, i32 0 }, section "perfcc_desc"
namespace ns {
struct Widget {
  int draw(int x);
};
int Widget::draw(int x) { return x * 2; }
} // namespace ns
