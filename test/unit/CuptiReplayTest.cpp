// A real GPU's CUPTI buffers, replayed here through the adapter's own
// conversion. test/gpu/fixtures/h100-2026-11-26 holds what scripts/gpu-check.sh
// recorded on an H100 (CUPTI 13.0.1, driver 580.159.04): the CUDA example's
// buffers exactly as CUPTI filled them (PERFCC_CUPTI_RAW=1) and the trace that
// the same run wrote. Every record the adapter makes of the buffers on this
// machine must be in that trace with the same name, correlation, stream and
// times to the nanosecond, and nothing else GPU-side may be there: so the
// record versions the adapter casts to (CUpti_ActivityKernel10, ...) are what
// a real CUPTI 13 delivers, and the conversion is the one that ran on the GPU.
#include "CollectingSink.h"
#include "perfrt_cupti_raw.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

using collecting::apis;
using collecting::sink;
using collecting::strings;
using collecting::work;

const std::string Fixtures = PERFCC_GPU_FIXTURES "/h100-2026-11-26/";

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Frames {
  perfrt_cupti_raw_header header{};
  std::vector<std::vector<uint8_t>> buffers;
  std::map<uint64_t, std::string> names; // kernel name pointers' text
  bool cut = false;                      // ended inside a frame
};

/// The raw file's frames (perfrt_cupti_raw.h); a partial last frame is
/// dropped and flagged, as after a crash.
Frames readFrames(const std::vector<uint8_t> &bytes) {
  Frames f;
  if (bytes.size() < sizeof f.header)
    return f.cut = true, f;
  std::memcpy(&f.header, bytes.data(), sizeof f.header);
  size_t at = sizeof f.header;
  while (at < bytes.size()) {
    perfrt_cupti_raw_frame frame;
    if (bytes.size() - at < sizeof frame)
      return f.cut = true, f;
    std::memcpy(&frame, bytes.data() + at, sizeof frame);
    at += sizeof frame;
    if (frame.size > bytes.size() - at)
      return f.cut = true, f;
    const uint8_t *payload = bytes.data() + at;
    if (frame.type == PERFRT_CUPTI_RAW_BUFFER) {
      f.buffers.emplace_back(payload, payload + frame.size);
    } else if (frame.type == PERFRT_CUPTI_RAW_NAME && frame.size > 8) {
      uint64_t address;
      std::memcpy(&address, payload, 8);
      f.names[address].assign(reinterpret_cast<const char *>(payload + 8),
                              frame.size - 9);
    }
    at += (frame.size + 7) & ~uint64_t(7);
  }
  return f;
}

const char *keptName(const char *address, void *context) {
  auto &names = *static_cast<const std::map<uint64_t, std::string> *>(context);
  auto it = names.find(reinterpret_cast<uintptr_t>(address));
  return it == names.end() ? "(name not kept)" : it->second.c_str();
}

void replay(const Frames &f) {
  apis.clear();
  work.clear();
  for (std::vector<uint8_t> buffer : f.buffers) {
    // CUPTI's buffers are 8-byte aligned; a vector's storage is too.
    perfrt_cupti_replay(
        &sink, buffer.data(), buffer.size(), keptName,
        const_cast<std::map<uint64_t, std::string> *>(&f.names));
  }
}

/// CUPTI names kernels mangled; the trace shows them demangled.
std::string demangled(const std::string &name) {
  int status = 0;
  char *text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text ? text : name;
  std::free(text);
  return out;
}

/// Trace timestamps are microseconds with three decimals: nanoseconds.
uint64_t ns(const nlohmann::json &us) {
  return uint64_t(std::llround(us.get<double>() * 1000.0));
}

TEST(CuptiReplay, TheFileIsWhatTheH100Wrote) {
  Frames f = readFrames(readFile(Fixtures + "cuda_stalls.cupti.bin"));
  ASSERT_FALSE(f.cut);
  EXPECT_EQ(std::string(f.header.magic, 16), PERFRT_CUPTI_RAW_MAGIC);
  EXPECT_EQ(f.header.format, PERFRT_CUPTI_RAW_FORMAT);
  EXPECT_EQ(f.header.cupti_version, 130001u);
  EXPECT_GE(f.buffers.size(), 1u);
  // The example's two kernels, each name kept once.
  EXPECT_EQ(f.names.size(), 2u);
}

TEST(CuptiReplay, EveryRecordIsInTheTraceTheGpuRunWrote) {
  replay(readFrames(readFile(Fixtures + "cuda_stalls.cupti.bin")));
  nlohmann::json trace;
  std::ifstream(Fixtures + "cuda_stalls.trace.json") >> trace;

  // The trace's CUPTI events by (category, correlation, start).
  using Key = std::tuple<std::string, uint64_t, uint64_t>;
  std::map<Key, const nlohmann::json *> events;
  for (const nlohmann::json &e : trace["traceEvents"]) {
    std::string cat = e.value("cat", "");
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "kernel" ||
        cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_sync")
      events[{cat, e["args"]["correlation"].get<uint64_t>(), ns(e["ts"])}] = &e;
  }
  ASSERT_EQ(apis.size() + work.size(),
            trace["metadata"]["gpu"]["records"].get<size_t>());
  ASSERT_EQ(events.size(), apis.size() + work.size());

  for (const perfrt_gpu_api &a : apis) {
    Key key{a.driver ? "cuda_driver" : "cuda_runtime", a.correlation, a.start};
    auto it = events.find(key);
    ASSERT_NE(it, events.end()) << strings[a.name] << " " << a.correlation;
    const nlohmann::json &e = *it->second;
    EXPECT_EQ(e["name"], strings[a.name]);
    EXPECT_EQ(ns(e["dur"]), a.end - a.start) << strings[a.name];
    EXPECT_EQ(e["args"]["cbid"], a.cbid);
    EXPECT_EQ(e["tid"], a.tid);
  }
  static const char *const cats[] = {"", "kernel", "gpu_memcpy", "gpu_memset",
                                     "cuda_sync"};
  std::map<std::string, int> kernels;
  for (const perfrt_gpu_work &w : work) {
    ASSERT_TRUE(w.kind >= PERFRT_GPU_KERNEL && w.kind <= PERFRT_GPU_SYNC);
    auto it = events.find({cats[w.kind], w.correlation, w.start});
    ASSERT_NE(it, events.end()) << strings[w.name] << " " << w.correlation;
    const nlohmann::json &e = *it->second;
    EXPECT_EQ(ns(e["dur"]), w.end - w.start);
    EXPECT_EQ(e["args"]["stream"], w.stream);
    EXPECT_EQ(e["args"]["context"], w.context);
    if (w.kind == PERFRT_GPU_SYNC) {
      EXPECT_EQ(e["args"]["cuda_sync_kind"], strings[w.sync_kind]);
      continue;
    }
    std::string name = w.kind == PERFRT_GPU_KERNEL ? demangled(strings[w.name])
                                                   : strings[w.name];
    EXPECT_EQ(e["name"], name);
    EXPECT_EQ(e["args"]["device"], w.device);
    if (w.kind == PERFRT_GPU_KERNEL) {
      ++kernels[name];
      EXPECT_EQ(e["args"]["registers per thread"], w.registers);
      EXPECT_EQ(e["args"]["grid"][0], w.grid[0]);
      EXPECT_EQ(e["args"]["block"][0], w.block[0]);
    } else {
      EXPECT_EQ(e["args"]["bytes"], w.bytes);
    }
  }
  // What examples/cuda/stalls.cpp launched, 50 iterations: a 2 ms kernel
  // and a small one per iteration, and three small ones in a graph.
  EXPECT_EQ(kernels["(anonymous namespace)::busy_kernel(float*, unsigned long "
                    "long)"],
            50);
  EXPECT_EQ(kernels["(anonymous namespace)::scale_kernel(float*, int, float)"],
            53);
}

TEST(CuptiReplay, AFileCutAnywhereGivesAPrefixOfItsRecords) {
  std::vector<uint8_t> whole = readFile(Fixtures + "cuda_stalls.cupti.bin");
  replay(readFrames(whole));
  size_t all = apis.size() + work.size();
  // Cut before, inside and after each frame's size word and body.
  for (size_t cut = 0; cut < whole.size(); cut += 997) {
    Frames f = readFrames({whole.begin(), whole.begin() + cut});
    EXPECT_TRUE(f.cut || cut == sizeof(perfrt_cupti_raw_header));
    replay(f);
    EXPECT_LE(apis.size() + work.size(), all);
  }
}

} // namespace
