// A targets file instruments what it names, whatever the size, and nothing
// else; `!` excludes and the last matching line decides; FILE:FUNC matches
// the source path on whole components from the end.
// RUN: %clangxx -O1 -g -S -emit-llvm %s -o %t.ll
// RUN: printf 'app::*\n!app::skip*\napp::skipButKept\n*/pass/targets-file-*.cpp:helper\n' > %t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.targets %opt -passes=perf-instrument -S %t.ll \
// RUN:   -pass-remarks=perf-instrument -pass-remarks-missed=perf-instrument \
// RUN:   -o /dev/null 2>&1 | FileCheck %s -DTARGETS=%t.targets

// CHECK-DAG: remark: {{.*}}instrumented app::tiny: selected by [[TARGETS]]:1
// CHECK-DAG: remark: {{.*}}not instrumented app::skipMe: excluded by [[TARGETS]]:2
// CHECK-DAG: remark: {{.*}}instrumented app::skipButKept: selected by [[TARGETS]]:3
// CHECK-DAG: remark: {{.*}}instrumented helper: selected by [[TARGETS]]:4
// CHECK-DAG: remark: {{.*}}not instrumented other: not named by the targets file

namespace app {
int tiny(int x) { return x; }
int skipMe(int x) { return x + 1; }
int skipButKept(int x) { return x + 2; }
} // namespace app
extern "C" int helper(int x) { return x * 2; }
int other(int x) { return x - 1; }
