//===- perfrt_gpu_raw.cpp - the file PERFCC_CUPTI_RAW keeps buffers in ----===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_gpu_raw.h"

#include "perfrt_gpu_store.h"
#include "perfrt_output_files.h"
#include "perfrt_runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace perfrt {

namespace {
char gRawPath[4096];
int gRawFd = -1;
} // namespace

std::string gpuRawOpen() {
  if (!gRt.flags.cuptiRaw)
    return {};
  std::snprintf(gRawPath, sizeof gRawPath, "%s/%s.%d.cupti.bin",
                gRt.flags.out.c_str(), gRt.program, gRt.pid);
  gRawFd = openOutputFile(gRawPath, 0600, false);
  if (gRawFd < 0)
    return std::string("perfcc: PERFCC_CUPTI_RAW=1: cannot create ") +
           gRawPath + ": " + std::strerror(errno) + " (nothing ran)";
  gpuSinkSetRawFd(gRawFd);
  return {};
}

const char *gpuRawFinish() {
  if (gRawFd < 0)
    return nullptr;
  struct stat st;
  if (fstat(gRawFd, &st) == 0 && st.st_size == 0) {
    unlink(gRawPath);
    return nullptr;
  }
  return gRawPath;
}

void gpuRawAfterFork() {
  if (gRawFd < 0)
    return;
  ::close(gRawFd);
  gRawFd = -1;
  gpuSinkSetRawFd(-1);
}

} // namespace perfrt

PERFRT_NOINSTR_END
