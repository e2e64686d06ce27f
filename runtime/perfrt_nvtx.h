//===- perfrt_nvtx.h - NVTX ranges for instrumented functions -------------===//
//
// With PERFCC_NVTX=1 every recorded function also pushes an NVTX range on
// entry and pops it on exit, in the domain "perfcc", so Nsight Systems shows
// the probes on its timeline. NVTX is header-only: with no tool attached
// (no NVTX_INJECTION64_PATH) each call is a predicted branch, and nothing
// CUDA is loaded. The probes reach these through their slow path only, so
// the setting costs nothing when off.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_NVTX_H
#define PERFRT_NVTX_H

#include <cstdint>

namespace perfrt {

/// False when this runtime was built without the NVTX headers (no CUDA
/// toolkit at build time): PERFCC_NVTX=1 is then refused at start-up.
bool nvtxSupported();

/// Pushes the range of function \p fn (its qualified name).
void nvtxEnter(uint32_t fn);

/// Pops the innermost range.
void nvtxExit();

} // namespace perfrt

#endif // PERFRT_NVTX_H
