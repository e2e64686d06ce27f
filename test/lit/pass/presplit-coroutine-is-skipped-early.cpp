// Before CoroSplit a coroutine's returns are not its real exits: the early
// stage skips it with a reason; the late stage sees the split ramp and resume
// functions, which are ordinary functions.
// RUN: printf '*:*\n' > %t.targets
// RUN: env PERFCC_BUILD_TARGETS=%t.targets PERFCC_BUILD_STAGE=early %clangxx -std=c++20 -O1 -fpass-plugin=%plugin -S -emit-llvm %s -o /dev/null -Rpass-missed=perf-instrument 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: env PERFCC_BUILD_TARGETS=%t.targets %clangxx -std=c++20 -O1 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=LATE
#include <coroutine>

struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};

// EARLY: not instrumented counter: C++20 coroutine before splitting
// LATE: @__perfcc_desc._Z7counterv.resume
Task counter() {
  co_await std::suspend_always{};
  co_return;
}
