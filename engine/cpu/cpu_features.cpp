// engine/cpu/cpu_features.cpp - run-time detection of SIMD support and the
// level cap (see cpu_features.h).
#include "engine/cpu/cpu_features.h"

#include "engine/error.h"

#include <atomic>
#include <cpuid.h>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace engine {
namespace {

// xgetbv through inline assembly, so this file needs no -mxsave.
uint64_t read_xcr0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

// Linux keeps AMX tile data (8 KiB of state per thread) off until a process
// asks; without the permission the first tile instruction raises SIGILL.
bool request_amx_permission() {
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return f;
  bool osxsave = c & (1u << 27), avx = c & (1u << 28);
  bool fma = c & (1u << 12), f16c = c & (1u << 29);
  if (!osxsave || !avx)
    return f;
  uint64_t xcr0 = read_xcr0();
  bool os_avx = (xcr0 & 0x6) == 0x6;         // SSE and AVX state
  bool os_avx512 = (xcr0 & 0xe6) == 0xe6;    // + opmask, upper ZMM, ZMM16-31
  bool os_amx = (xcr0 & 0x60000) == 0x60000; // XTILECFG and XTILEDATA
  if (!os_avx)
    return f;
  f.fma = fma;
  f.f16c = f16c;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return f;
  f.avx2 = b & (1u << 5);
  if (os_avx512) {
    f.avx512f = b & (1u << 16);
    f.avx512dq = b & (1u << 17);
    f.avx512bw = b & (1u << 30);
    f.avx512vl = b & (1u << 31);
    f.avx512fp16 = d & (1u << 23);
  }
  if (os_amx) {
    f.amx_bf16 = d & (1u << 22);
    f.amx_tile = d & (1u << 24);
  }
  unsigned max_sub = a;
  if (os_avx512 && max_sub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
    f.avx512bf16 = a & (1u << 5);
  if (f.amx_tile && f.amx_bf16)
    f.amx_permitted = request_amx_permission();
  return f;
}

constexpr int kNoCap = -1;
constexpr int kUnread = -2;
std::atomic<int> api_cap{kNoCap};
std::atomic<int> env_cap{kUnread};
std::mutex env_mutex;

// The cap from ENGINE_CPU_ISA, read on first use (and again after
// clear_isa_cap()). A bad value stays unread, so every call reports it.
int env_cap_value() {
  int cap = env_cap.load(std::memory_order_acquire);
  if (cap != kUnread)
    return cap;
  std::lock_guard<std::mutex> lock(env_mutex);
  cap = env_cap.load();
  if (cap == kUnread) {
    const char *value = std::getenv("ENGINE_CPU_ISA");
    cap = value && *value ? int(parse_isa(value, "ENGINE_CPU_ISA")) : kNoCap;
    env_cap.store(cap, std::memory_order_release);
  }
  return cap;
}

} // namespace

const CpuFeatures &cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

Isa max_supported_isa() {
  const CpuFeatures &f = cpu_features();
  if (!(f.avx2 && f.fma && f.f16c))
    return Isa::Scalar;
  if (!(f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq))
    return Isa::Avx2;
  if (!f.avx512bf16)
    return Isa::Avx512;
  if (!(f.amx_tile && f.amx_bf16 && f.amx_permitted))
    return Isa::Avx512Bf16;
  return Isa::Amx;
}

Isa active_isa() {
  static const Isa supported = max_supported_isa();
  int cap = api_cap.load(std::memory_order_relaxed);
  if (cap == kNoCap)
    cap = env_cap_value();
  if (cap == kNoCap || cap > int(supported))
    return supported;
  return Isa(cap);
}

void set_isa_cap(Isa cap) { api_cap.store(int(cap)); }

void clear_isa_cap() {
  api_cap.store(kNoCap);
  env_cap.store(kUnread);
}

std::string_view isa_name(Isa isa) {
  switch (isa) {
  case Isa::Scalar:
    return "scalar";
  case Isa::Avx2:
    return "avx2";
  case Isa::Avx512:
    return "avx512";
  case Isa::Avx512Bf16:
    return "avx512bf16";
  case Isa::Amx:
    return "amx";
  }
  return "?";
}

Isa parse_isa(std::string_view name, std::string_view source) {
  for (Isa isa :
       {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx})
    if (name == isa_name(isa))
      return isa;
  throw Error(std::string(source) + ": unknown instruction set '" +
              std::string(name) +
              "' (expected scalar, avx2, avx512, avx512bf16 or amx)");
}

// The size of the highest cache level of CPU 0 as sysfs gives it
// ("32768K"), 0 if it cannot be read.
static int64_t sysfs_last_level_cache_bytes() {
  int64_t best = 0;
  int best_level = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || size.empty())
      continue;
    char *end = nullptr;
    int64_t bytes = std::strtoll(size.c_str(), &end, 10);
    if (*end == 'K')
      bytes <<= 10;
    else if (*end == 'M')
      bytes <<= 20;
    if (level > best_level && bytes > 0)
      best_level = level, best = bytes;
  }
  return best;
}

int64_t last_level_cache_bytes() {
  // sysfs first: glibc's sysconf derives the L3 from CPUID, which a VM can
  // report oddly (a 2-vCPU AMD EPYC Zen 4 guest: 320 MiB from sysconf,
  // 32 MiB from sysfs and lscpu).
  static const int64_t bytes = [] {
    if (const int64_t sysfs = sysfs_last_level_cache_bytes(); sysfs > 0)
      return sysfs;
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? int64_t(l3) : int64_t(32) << 20;
  }();
  return bytes;
}

std::string cpu_description(int num_threads) {
  Isa isa = active_isa();
  std::string text = "cpu: ";
  text += isa == Isa::Amx ? "avx512bf16+amx" : std::string(isa_name(isa));
  if (isa != max_supported_isa())
    text += " (capped; " + std::string(isa_name(max_supported_isa())) +
            " available)";
  text += ", " + std::to_string(num_threads) +
          (num_threads == 1 ? " thread" : " threads");
  return text;
}

} // namespace engine
