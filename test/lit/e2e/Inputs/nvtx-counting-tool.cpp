// A minimal NVTX tool, for tests: loaded by NVTX from NVTX_INJECTION64_PATH
// as Nsight Systems would be, it takes over range push/pop and domain
// creation, and prints at exit how many ranges were pushed and popped in
// which domain, and each name's count, sorted.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace {

std::mutex lock;
std::map<std::string, int> *pushes = new std::map<std::string, int>;
int popCount = 0, depth = 0;
std::string *domainName = new std::string;

nvtxDomainHandle_t domainCreate(const char *name) {
  std::lock_guard<std::mutex> g(lock);
  *domainName = name ? name : "";
  return reinterpret_cast<nvtxDomainHandle_t>(domainName);
}

int rangePushEx(nvtxDomainHandle_t, const nvtxEventAttributes_t *a) {
  std::lock_guard<std::mutex> g(lock);
  ++(*pushes)[a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii
                                                              : "?"];
  return depth++;
}

int rangePop(nvtxDomainHandle_t) {
  std::lock_guard<std::mutex> g(lock);
  ++popCount;
  return --depth;
}

void report() {
  int total = 0;
  for (auto &[name, n] : *pushes)
    total += n;
  std::fprintf(stderr, "nvtx-tool: domain=%s pushes=%d pops=%d\n",
               domainName->c_str(), total, popCount);
  for (auto &[name, n] : *pushes)
    std::fprintf(stderr, "nvtx-tool: %s x%d\n", name.c_str(), n);
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
  auto *callbacks = static_cast<const NvtxExportTableCallbacks *>(
      getExportTable(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!callbacks ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size))
    return 0;
  *table[NVTX_CBID_CORE2_DomainCreateA] =
      reinterpret_cast<NvtxFunctionPointer>(domainCreate);
  *table[NVTX_CBID_CORE2_DomainRangePushEx] =
      reinterpret_cast<NvtxFunctionPointer>(rangePushEx);
  *table[NVTX_CBID_CORE2_DomainRangePop] =
      reinterpret_cast<NvtxFunctionPointer>(rangePop);
  std::atexit(report);
  return 1;
}
