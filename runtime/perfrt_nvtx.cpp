//===- perfrt_nvtx.cpp - NVTX ranges for instrumented functions -----------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_nvtx.h"

#include "perfrt_registry.h"

#ifdef PERFRT_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace perfrt {

#ifdef PERFRT_HAVE_NVTX

namespace {
/// Created on first use; NVTX domains live as long as the process.
nvtxDomainHandle_t domain() {
  static nvtxDomainHandle_t d = nvtxDomainCreateA("perfcc");
  return d;
}
} // namespace

bool nvtxSupported() { return true; }

void nvtxEnter(uint32_t fn) {
  if (!fn || fn > gRegistry.size())
    return;
  nvtxEventAttributes_t attr = {};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = gRegistry.get(fn).name; // lives as long as the run
  nvtxDomainRangePushEx(domain(), &attr);
}

void nvtxExit() { nvtxDomainRangePop(domain()); }

#else

bool nvtxSupported() { return false; }
void nvtxEnter(uint32_t) {}
void nvtxExit() {}

#endif

} // namespace perfrt

PERFRT_NOINSTR_END
