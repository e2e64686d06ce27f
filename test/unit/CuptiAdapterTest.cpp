// The CUPTI adapter's conversion (runtime/cupti/perfrt_cupti.cpp), without
// a GPU: libcupti parses activity buffers on any machine, so buffers built
// from cupti.h's own record structs go through the adapter's real code
// (perfrt_cupti_replay, the same path as a buffer CUPTI completed) into a
// sink that keeps what it gets. What still needs a GPU is CUPTI filling the
// buffers. (This test includes cupti.h to build them, as Kineto's do.)
#include "CollectingSink.h"

#include <cupti.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using collecting::apis;
using collecting::sink;
using collecting::strings;
using collecting::work;

/// CUPTI's buffer layout: records back to back, each 8-byte aligned.
struct Buffer {
  alignas(8) uint8_t bytes[8192] = {};
  size_t size = 0;
  template <typename T> void add(const T &record) {
    std::memcpy(bytes + size, &record, sizeof record);
    size = (size + sizeof record + 7) & ~size_t(7);
  }
};

TEST(CuptiAdapter, EveryEnabledKindIsConvertedFieldByField) {
  Buffer b;
  CUpti_ActivityAPI launch{};
  launch.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  launch.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  launch.start = 1000, launch.end = 4000, launch.correlationId = 7;
  launch.threadId = 4242;
  b.add(launch);
  CUpti_ActivityAPI driver = launch;
  driver.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  driver.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  driver.start = 1500, driver.end = 3500, driver.correlationId = 8;
  b.add(driver);
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 5000, k.end = 9000, k.correlationId = 7;
  k.deviceId = 1, k.contextId = 3, k.streamId = 13;
  k.gridX = 64, k.gridY = 2, k.gridZ = 1, k.blockX = 256, k.blockY = 1,
  k.blockZ = 1;
  k.registersPerThread = 40, k.staticSharedMemory = 1024,
  k.dynamicSharedMemory = 2048;
  k.graphId = 5, k.graphNodeId = 77;
  k.name = "_Z6kernelPfi";
  b.add(k);
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 1 << 20, m.start = 10000, m.end = 20000, m.correlationId = 9;
  m.deviceId = 1, m.contextId = 3, m.streamId = 14;
  b.add(m);
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 4096, s.start = 21000, s.end = 22000, s.correlationId = 10;
  s.deviceId = 1, s.contextId = 3, s.streamId = 14;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  b.add(s);
  CUpti_ActivitySynchronization2 y{};
  y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  y.start = 23000, y.end = 30000, y.correlationId = 11, y.contextId = 3,
  y.streamId = 13;
  b.add(y);

  perfrt_cupti_replay(&sink, b.bytes, b.size, nullptr, nullptr);

  ASSERT_EQ(apis.size(), 2u);
  EXPECT_EQ(strings[apis[0].name], "cudaLaunchKernel") << "version suffix gone";
  EXPECT_EQ(apis[0].driver, 0u);
  EXPECT_EQ(apis[0].start, 1000u);
  EXPECT_EQ(apis[0].end, 4000u);
  EXPECT_EQ(apis[0].correlation, 7u);
  EXPECT_EQ(apis[0].tid, 4242u);
  EXPECT_EQ(apis[0].cbid,
            uint32_t(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_EQ(strings[apis[1].name], "cuLaunchKernel");
  EXPECT_EQ(apis[1].driver, 1u);

  ASSERT_EQ(work.size(), 4u);
  const perfrt_gpu_work &kw = work[0];
  EXPECT_EQ(kw.kind, uint32_t(PERFRT_GPU_KERNEL));
  EXPECT_EQ(strings[kw.name], "_Z6kernelPfi") << "demangled by the writer";
  EXPECT_EQ(kw.start, 5000u);
  EXPECT_EQ(kw.end, 9000u);
  EXPECT_EQ(kw.correlation, 7u);
  EXPECT_EQ(kw.device, 1u);
  EXPECT_EQ(kw.context, 3u);
  EXPECT_EQ(kw.stream, 13u);
  EXPECT_EQ(kw.grid[0], 64);
  EXPECT_EQ(kw.grid[1], 2);
  EXPECT_EQ(kw.block[0], 256);
  EXPECT_EQ(kw.registers, 40u);
  EXPECT_EQ(kw.shared_memory, 3072u);
  EXPECT_EQ(kw.graph_id, 5u);
  EXPECT_EQ(kw.graph_node_id, 77u);

  EXPECT_EQ(work[1].kind, uint32_t(PERFRT_GPU_MEMCPY));
  EXPECT_EQ(strings[work[1].name], "Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(work[1].bytes, 1u << 20);
  EXPECT_EQ(work[1].stream, 14u);

  EXPECT_EQ(work[2].kind, uint32_t(PERFRT_GPU_MEMSET));
  EXPECT_EQ(strings[work[2].name], "Memset (Device)");
  EXPECT_EQ(work[2].bytes, 4096u);

  EXPECT_EQ(work[3].kind, uint32_t(PERFRT_GPU_SYNC));
  EXPECT_EQ(strings[work[3].sync_kind], "Stream Sync");
  EXPECT_EQ(work[3].device, ~0u) << "a sync record names only its context";
  EXPECT_EQ(work[3].context, 3u);
  EXPECT_EQ(work[3].stream, 13u);
  EXPECT_EQ(work[3].correlation, 11u);
}

} // namespace
