//===- perfrt_gpu_attach.cpp - CUPTI only in processes that use CUDA ------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_gpu_attach.h"

#include "perfrt_gpu_store.h"
#include "perfrt_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

namespace perfrt {

namespace {

constexpr const char *InjectionVariable = "CUDA_INJECTION64_PATH";
constexpr const char *AdapterName = "libperfrt_cupti.so";
constexpr const char *AttachSymbol = "perfrt_cupti_attach";

std::string *gPendingReason = nullptr; // why CUPTI will not attach, if known

void say(const std::string &line) {
  std::string text = line + "\n";
  ssize_t ignored = ::write(2, text.data(), text.size());
  (void)ignored;
}

[[noreturn]] void refuse(const std::string &problem) {
  say("perfcc: PERFCC_CUPTI='on': " + problem);
  _exit(2);
}

/// The adapter's path: next to this library, in the build tree and after
/// install alike.
std::string adapterPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&gpuAttachInit), &info) ||
      !info.dli_fname)
    return AdapterName;
  std::string self = info.dli_fname;
  size_t slash = self.rfind('/');
  return slash == std::string::npos ? AdapterName
                                    : self.substr(0, slash + 1) + AdapterName;
}

bool cudaDriverLoaded() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (h)
    dlclose(h);
  return h != nullptr;
}

bool gFailedRequired = false; // PERFCC_CUPTI=on, and the end found no CUPTI

void pending(const std::string &reason) {
  if (!gPendingReason)
    gPendingReason = new std::string(reason);
}

} // namespace

void gpuAttachInit() {
  uint64_t cap = gRt.flags.gpuBufferMb << 20;
  if (gRt.flags.cupti == Cupti::Off || gRt.flags.mode == Mode::Off) {
    // Never touch CUDA: no variable set, nothing loaded.
    gpuStoreInit(CuptiState::Off, cap);
    return;
  }
  gpuStoreInit(CuptiState::NotUsed, cap);
  bool required = gRt.flags.cupti == Cupti::On;
  std::string adapter = adapterPath();
  if (::access(adapter.c_str(), R_OK) != 0) {
    std::string why = adapter + " not found (perfcc was built without the "
                                "CUDA toolkit's CUPTI)";
    if (required)
      refuse(why);
    return pending(why);
  }
  const char *other = std::getenv(InjectionVariable);
  if (other && *other && adapter != other) {
    std::string why = std::string(InjectionVariable) + " is already '" + other +
                      "' (another tool injects into CUDA)";
    if (required)
      refuse(why);
    return pending(why);
  }
  if (required) {
    // Loading the adapter resolves libcupti now, so a missing library is
    // an error before main rather than a silent CPU-only run.
    void *h = dlopen(adapter.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
      refuse(std::string("cannot load the CUPTI adapter: ") + dlerror());
  }
  if (cudaDriverLoaded()) {
    // CUDA came first (this library was loaded late): attach now.
    void *h = dlopen(adapter.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto attach =
        h ? reinterpret_cast<int (*)()>(dlsym(h, AttachSymbol)) : nullptr;
    if (!attach) {
      std::string why = std::string("cannot load the CUPTI adapter: ") +
                        (h ? "no entry point" : dlerror());
      if (required)
        refuse(why);
      return pending(why);
    }
    attach();
    return;
  }
  setenv(InjectionVariable, adapter.c_str(), 1);
}

void gpuReportUnavailable(const char *reason) {
  gpuStoreUnavailable(reason);
  if (gRt.flags.cupti == Cupti::On) {
    say(std::string("perfcc: PERFCC_CUPTI='on': CUPTI is unavailable: ") +
        reason + "; writing what was recorded and exiting");
    runtimeFinish(false);
    _exit(2);
  }
  say(std::string("perfcc: CUPTI is unavailable (") + reason +
      "); tracing the CPU side only");
}

bool gpuAttachFailedRequired() { return gFailedRequired; }

bool libraryMapped(const char *name) {
  FILE *maps = std::fopen("/proc/self/maps", "re");
  if (!maps)
    return false;
  char line[512];
  bool found = false;
  while (!found && std::fgets(line, sizeof line, maps))
    found = std::strstr(line, name) != nullptr;
  std::fclose(maps);
  return found;
}

void gpuAttachCheckAtExit() {
  if (gRt.flags.cupti == Cupti::Off || gRt.flags.mode == Mode::Off)
    return;
  if (!cudaDriverLoaded()) {
    // A program that links the CUDA runtime on a machine with no driver:
    // its CUDA calls failed, and no GPU activity exists to record.
    if (gpuStoreState() == CuptiState::NotUsed && libraryMapped("libcudart")) {
      const char *why = "the process uses the CUDA runtime but no CUDA "
                        "driver (libcuda.so.1) could be loaded: no GPU here";
      gpuStoreUnavailable(why);
      say(std::string("perfcc: CUPTI is unavailable (") + why +
          "); the CPU side was traced");
      gFailedRequired = gRt.flags.cupti == Cupti::On;
    }
    return;
  }
  // The store keeps the first reason: a state of On or Unavailable set by
  // the adapter stands; a process that loaded CUDA with no adapter report
  // is told why.
  CuptiState s = gpuStoreState();
  if (s != CuptiState::NotUsed)
    return;
  gpuStoreUnavailable(
      gPendingReason
          ? gPendingReason->c_str()
          : "the process loaded the CUDA driver but never initialized it");
}

} // namespace perfrt

PERFRT_NOINSTR_END
