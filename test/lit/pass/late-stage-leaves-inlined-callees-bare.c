// The plugin's pipeline position, through clang -fpass-plugin. By default
// probes go in after inlining: an inlined callee leaves no probe in its
// caller. PERFCC_BUILD_STAGE=early instruments before inlining, so the
// inlined callee's probes land inside the caller.
// RUN: printf 'root\nleaf\n' > %t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.targets %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=LATE
// RUN: env PERFCC_BUILD_TARGETS=%t.targets PERFCC_BUILD_STAGE=early %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=EARLY
// Also at -O0, where every function is optnone.
// RUN: env PERFCC_BUILD_TARGETS=%t.targets %clang -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0

// LATE-LABEL: define {{.*}} @root(
// LATE:         call void @__perfcc_enter({{.*}}@__perfcc_desc.root
// LATE-NOT:     @__perfcc_desc.leaf
// LATE:       }
// EARLY-LABEL: define {{.*}} @root(
// EARLY-DAG:     call void @__perfcc_enter({{.*}}@__perfcc_desc.root
// EARLY-DAG:     call void @__perfcc_enter({{.*}}@__perfcc_desc.leaf
// EARLY:       }
// O0-DAG: call void @__perfcc_enter({{.*}}@__perfcc_desc.leaf
// O0-DAG: call void @__perfcc_enter({{.*}}@__perfcc_desc.root
static int leaf(int x) { return x * 3 + 1; }
int root(int x) { return leaf(x) + leaf(x + 1); }
