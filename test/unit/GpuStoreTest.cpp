// The sink's runtime side (runtime/perfrt_gpu_store.h): records from many
// CUPTI completion threads arrive whole, the cap drops and counts, and
// nothing arrives after the store closed.
#include "perfrt_gpu_store.h"
#include "perfrt_runtime.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace perfrt;

namespace {

std::vector<perfrt_gpu_work> kernels(uint32_t n, uint32_t firstCorr) {
  std::vector<perfrt_gpu_work> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    out[i].kind = PERFRT_GPU_KERNEL;
    out[i].start = 100 + i, out[i].end = 200 + i;
    out[i].correlation = firstCorr + i;
  }
  return out;
}

TEST(GpuStore, BuffersFromManyThreadsArriveWholeAndNamesInternOnce) {
  gpuStoreInit(CuptiState::NotUsed, 0);
  const perfrt_gpu_sink *sink = gpuSink();
  ASSERT_EQ(sink->version, PERFRT_GPU_SINK_VERSION);
  std::vector<std::thread> threads;
  std::vector<uint32_t> ids(8);
  for (uint32_t t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      ids[t] = sink->intern("cudaLaunchKernel");
      for (uint32_t b = 0; b < 50; ++b) {
        auto w = kernels(100, (t * 50 + b) * 100);
        sink->records(nullptr, 0, w.data(), uint32_t(w.size()));
      }
      sink->dropped(3);
    });
  for (std::thread &t : threads)
    t.join();
  sink->attached(130001, nullptr);
  GpuData d = closeGpuStore(false);
  EXPECT_EQ(d.state, CuptiState::On);
  EXPECT_EQ(d.cuptiVersion, 130001u);
  EXPECT_EQ(d.work.size(), 8u * 50 * 100);
  EXPECT_EQ(d.cuptiDropped, 24u);
  for (uint32_t id : ids)
    EXPECT_EQ(id, ids[0]);
  EXPECT_STREQ(d.string(ids[0]), "cudaLaunchKernel");
  // Whole buffers: each one's correlations are contiguous.
  for (size_t i = 0; i < d.work.size(); i += 100)
    for (size_t j = 1; j < 100; ++j)
      EXPECT_EQ(d.work[i + j].correlation, d.work[i].correlation + j);
  // Closed: a late buffer is counted, not kept.
  auto late = kernels(5, 1);
  sink->records(nullptr, 0, late.data(), 5);
  GpuData after = closeGpuStore(false);
  EXPECT_TRUE(after.work.empty());
  EXPECT_EQ(after.lateRecords, 5u);
}

TEST(GpuStore, RecordsPastTheCapAreDroppedAndCounted) {
  gpuStoreInit(CuptiState::NotUsed, 10 * sizeof(perfrt_gpu_work));
  const perfrt_gpu_sink *sink = gpuSink();
  auto w = kernels(6, 1);
  sink->records(nullptr, 0, w.data(), 6);
  sink->records(nullptr, 0, w.data(), 6); // would pass the cap: dropped whole
  sink->records(nullptr, 0, w.data(), 4);
  GpuData d = closeGpuStore(false);
  EXPECT_EQ(d.work.size(), 10u);
  EXPECT_EQ(d.capDropped, 6u);
}

TEST(GpuStore, UnavailableKeepsTheFirstReason) {
  gpuStoreInit(CuptiState::NotUsed, 0);
  gpuStoreUnavailable("first");
  gpuStoreUnavailable("second");
  GpuData d = closeGpuStore(false);
  EXPECT_EQ(d.state, CuptiState::Unavailable);
  EXPECT_EQ(d.reason, "first");
}

} // namespace
