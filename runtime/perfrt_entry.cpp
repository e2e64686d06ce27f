//===- perfrt_entry.cpp - what the runtime exports ------------------------===//
//
// The library's constructor and destructor and every function programs call:
// __perfcc_register (from each instrumented DSO's constructor) and the
// perf/perf.h functions. Kept apart from the rest of the runtime, which the
// unit tests link without these start-up and exit hooks.
//
//===----------------------------------------------------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_gpu_store.h"
#include "perfrt_registry.h"
#include "perfrt_runtime.h"
#include "perfrt_thread.h"

#include "perfcc/ABI.h"

#include <cstdio>
#include <string>
#include <unistd.h>

using namespace perfrt;

__attribute__((constructor(102))) static void perfrtStart() { runtimeInit(); }

__attribute__((destructor(102))) static void perfrtStop() {
  runtimeFinish(false);
}

PERFRT_API void __perfcc_register(uint32_t abiVersion, perfcc_desc *begin,
                                  perfcc_desc *end) {
  runtimeInit();
  if (abiVersion != PERFCC_ABI_VERSION) {
    std::string line = "perfcc: a module was instrumented for probe ABI " +
                       std::to_string(abiVersion) +
                       " but this runtime speaks " +
                       std::to_string(PERFCC_ABI_VERSION) +
                       "; its functions are not recorded (rebuild it with the "
                       "matching perfcc)\n";
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
    return;
  }
  gRegistry.add(begin, end, gRt.targets, gRt.flags.mode != Mode::Off,
                gRt.delayTargets);
}

PERFRT_API void perfcc_flush(void) { runtimeFinish(false); }

/// The CUPTI adapter's way in (perfrt_gpu_records.h).
PERFRT_API const perfrt_gpu_sink *__perfrt_gpu_sink(void) { return gpuSink(); }

PERFRT_API void perfcc_set_thread_name(const char *name) {
  ThreadState *t = tlsState ? tlsState : createThreadState();
  if (!t || !name)
    return;
  setThreadName(t, name);
  t->namedByApi = 1;
}

PERFRT_NOINSTR_END
