// Each instrumented module gets one constructor that hands the DSO's
// descriptor section to the runtime. It is in a comdat (the linker keeps one
// per DSO) and the section bounds are hidden (each DSO sees its own).
// RUN: %clangxx -O1 -S -emit-llvm %s -o %t.ll
// RUN: env PERFCC_BUILD_THRESHOLD=0 %opt -passes=perf-instrument -S %t.ll | FileCheck %s

// CHECK: $perfcc.module_ctor = comdat any
// CHECK: @__start_perfcc_desc = external hidden global
// CHECK: @__stop_perfcc_desc = external hidden global
// CHECK: @llvm.global_ctors = appending global {{.*}} { i32 1, {{.*}}@perfcc.module_ctor{{.*}}@perfcc.module_ctor{{.*}} }]
// CHECK-LABEL: define linkonce_odr hidden void @perfcc.module_ctor()
// CHECK-NEXT:    call void @__perfcc_register(i32 1, {{.*}}@__start_perfcc_desc{{.*}}, {{.*}}@__stop_perfcc_desc
// CHECK-NEXT:    ret void
int f(int x) { return x + 1; }
