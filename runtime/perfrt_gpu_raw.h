//===- perfrt_gpu_raw.h - the file PERFCC_CUPTI_RAW keeps buffers in ------===//
//
// The runtime owns the file (created at start-up in PERFCC_OUT, safely, so a
// file that cannot be made is exit status 2 before main); the adapter writes
// into it through the sink's raw_fd (format: perfrt_cupti_raw.h). The file
// stays open until the process ends: CUPTI may complete a late buffer after
// the trace is written, and a closed descriptor could by then name another
// file.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_GPU_RAW_H
#define PERFRT_GPU_RAW_H

#include <string>

namespace perfrt {

/// At start-up, after the output folder is checked: with PERFCC_CUPTI_RAW,
/// creates PROGRAM.PID.cupti.bin and hands it to the sink. Empty when done
/// (or off); else the problem as one line.
std::string gpuRawOpen();

/// At the end, after CUPTI's last flush: the file's path when it holds
/// anything, else null (an empty file, from a process that never used CUDA,
/// is removed). Async-signal-safe.
const char *gpuRawFinish();

/// In a forked child: the parent's file is not the child's to write.
void gpuRawAfterFork();

} // namespace perfrt

#endif // PERFRT_GPU_RAW_H
