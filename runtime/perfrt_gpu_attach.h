//===- perfrt_gpu_attach.h - CUPTI only in processes that use CUDA --------===//
//
// libperfrt.so links no CUDA library and starts on machines that have none.
// The CUPTI adapter (libperfrt_cupti.so, next to libperfrt.so) is loaded by
// the CUDA driver itself, through CUDA_INJECTION64_PATH, which start-up sets:
// the driver reads it in cuInit and calls the adapter's InitializeInjection
// before the program's first CUDA call returns, so CUPTI is subscribed and
// its clock registered before any GPU work exists, and a process that never
// initializes CUDA never loads CUPTI. A process that initialized CUDA before
// the runtime started (libperfrt.so dlopen'ed late) gets the adapter loaded
// and attached at once instead. docs/gpu-tracing.md says why this route.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_GPU_ATTACH_H
#define PERFRT_GPU_ATTACH_H

namespace perfrt {

/// At start-up, after the settings: prepares the route for PERFCC_CUPTI.
/// With PERFCC_CUPTI=on, anything that rules CUPTI out already (no adapter,
/// no libcupti, another tool's CUDA_INJECTION64_PATH) is one line and exit
/// status 2 before main.
void gpuAttachInit();

/// The adapter found CUPTI unavailable: one line on stderr; with
/// PERFCC_CUPTI=on, the run's output is written and the process exits 2.
void gpuReportUnavailable(const char *reason);

/// At the end: a process that loaded CUDA without the adapter attaching, or
/// that links the CUDA runtime but found no driver, is marked unavailable
/// with the reason (one line on stderr).
void gpuAttachCheckAtExit();

/// True when a library whose path contains \p name is mapped into the
/// process (read from /proc/self/maps).
bool libraryMapped(const char *name);

/// True when PERFCC_CUPTI=on and the end found CUPTI unavailable: the run's
/// output is written, then the process exits with status 2.
bool gpuAttachFailedRequired();

} // namespace perfrt

#endif // PERFRT_GPU_ATTACH_H
