// GpuCorrelation on synthetic activity: every property the trace relies on,
// checked against streams whose answer is known by construction, with no
// GPU and no CUPTI (runtime/perfrt_gpu_correlate.h).
#include "perfrt_gpu_correlate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace perfrt;

namespace {

/// Builds a run's records the way the adapter would hand them over.
struct Records {
  GpuData data;
  Records() { data.intern(""); }

  uint32_t api(uint32_t tid, uint64_t start, uint64_t end, uint32_t corr,
               const char *name = "cudaLaunchKernel", bool driver = false) {
    perfrt_gpu_api a{};
    a.start = start, a.end = end, a.correlation = corr, a.tid = tid;
    a.name = data.intern(name);
    a.driver = driver;
    data.apis.push_back(a);
    return uint32_t(data.apis.size() - 1);
  }
  uint32_t work(uint64_t start, uint64_t end, uint32_t corr,
                uint32_t stream = 7, uint32_t kind = PERFRT_GPU_KERNEL,
                uint64_t graphNode = 0) {
    perfrt_gpu_work w{};
    w.start = start, w.end = end, w.correlation = corr, w.stream = stream;
    w.kind = kind, w.device = kind == PERFRT_GPU_SYNC ? ~0u : 0;
    w.context = 1;
    w.name = data.intern(kind == PERFRT_GPU_SYNC ? "" : "kern");
    w.graph_node_id = graphNode;
    w.graph_id = graphNode ? 3 : 0;
    data.work.push_back(w);
    return uint32_t(data.work.size() - 1);
  }
  void node(uint32_t tid, uint64_t time, uint64_t id, uint64_t original = 0) {
    perfrt_gpu_graph_node n{};
    n.tid = tid, n.time = time, n.node_id = id, n.original_node_id = original;
    data.graphNodes.push_back(n);
  }
};

struct Span {
  uint32_t tid;
  uint64_t start, end;
  uint32_t fn;
};

/// Runs the correlation over \p spans (given per thread in completion
/// order) and returns the External id each span got.
std::vector<uint64_t> correlate(GpuCorrelation &c,
                                const std::vector<Span> &spans) {
  std::vector<uint64_t> ids;
  for (const Span &s : spans)
    ids.push_back(c.onSpan(s.tid, s.start, s.end, s.fn));
  c.finish();
  return ids;
}

TEST(GpuCorrelation, ApiCallIsChargedToTheInnermostOpenFunction) {
  Records r;
  uint32_t inLeaf = r.api(1, 150, 160, 10);
  uint32_t inMid = r.api(1, 210, 220, 11);
  uint32_t inRoot = r.api(1, 310, 320, 12);
  uint32_t outside = r.api(1, 1000, 1010, 13);
  GpuCorrelation c(std::move(r.data), 0, 2000);
  // root [100, 400] > mid [140, 300] > leaf [145, 170]; completion order.
  auto ids =
      correlate(c, {{1, 145, 170, 3}, {1, 140, 300, 2}, {1, 100, 400, 1}});
  EXPECT_EQ(c.apiPoints()[inLeaf].fn, 3u);
  EXPECT_EQ(c.apiPoints()[inMid].fn, 2u);
  EXPECT_EQ(c.apiPoints()[inRoot].fn, 1u);
  EXPECT_EQ(c.apiPoints()[outside].fn, 0u);
  EXPECT_EQ(c.apiPoints()[outside].externalId, 0u);
  // Each span with a call gets its own External id, shared with the call.
  EXPECT_NE(ids[0], 0u);
  EXPECT_EQ(c.apiPoints()[inLeaf].externalId, ids[0]);
  EXPECT_EQ(c.apiPoints()[inMid].externalId, ids[1]);
  EXPECT_EQ(c.apiPoints()[inRoot].externalId, ids[2]);
  EXPECT_EQ(std::set<uint64_t>(ids.begin(), ids.end()).size(), 3u);
}

TEST(GpuCorrelation, ThreadsAreChargedToTheirOwnSpansOnly) {
  Records r;
  uint32_t a = r.api(1, 150, 160, 1);
  uint32_t b = r.api(2, 150, 160, 2);
  GpuCorrelation c(std::move(r.data), 0, 1000);
  // Thread 2's span covers the same time but is another thread's.
  correlate(c, {{2, 100, 200, 9}, {1, 100, 200, 4}});
  EXPECT_EQ(c.apiPoints()[a].fn, 4u);
  EXPECT_EQ(c.apiPoints()[b].fn, 9u);
}

TEST(GpuCorrelation, KernelsJoinTheirLaunchAndCarryItsFunction) {
  Records r;
  uint32_t launch = r.api(1, 100, 110, 5);
  uint32_t k = r.work(120, 200, 5);
  GpuCorrelation c(std::move(r.data), 0, 1000);
  correlate(c, {{1, 90, 115, 2}});
  EXPECT_EQ(c.placements()[k].api, int64_t(launch));
  ASSERT_EQ(c.launched(launch).size(), 1u);
  EXPECT_EQ(c.quality().unmatchedLaunches, 0u);
  EXPECT_EQ(c.quality().unmatchedGpuRecords, 0u);
  EXPECT_EQ(c.quality().startsBeforeLaunch, 0u);
}

TEST(GpuCorrelation, GraphLaunchFansOutAndReplayedKernelsNameTheirCapturer) {
  Records r;
  // Capture on thread 1 inside function 7: three launches, each creating a
  // node; none is owed a kernel (captured, not run).
  r.api(1, 100, 110, 1);
  r.node(1, 105, 501);
  r.api(1, 120, 130, 2);
  r.node(1, 125, 502);
  r.api(1, 140, 150, 3);
  r.node(1, 145, 503);
  // Instantiation clones the nodes (on another thread, outside any span).
  r.node(2, 300, 601, 501);
  r.node(2, 300, 602, 502);
  r.node(2, 300, 603, 503);
  // Function 8 launches the graph once: three kernels share its id.
  uint32_t launch = r.api(1, 400, 410, 20, "cudaGraphLaunch");
  uint32_t k1 = r.work(420, 430, 20, 7, PERFRT_GPU_KERNEL, 601);
  uint32_t k2 = r.work(430, 440, 20, 7, PERFRT_GPU_KERNEL, 602);
  uint32_t k3 = r.work(440, 450, 20, 8, PERFRT_GPU_KERNEL, 603);
  GpuCorrelation c(std::move(r.data), 0, 1000);
  correlate(c, {{1, 90, 160, 7}, {1, 390, 415, 8}});
  EXPECT_EQ(c.launched(launch).size(), 3u);
  for (uint32_t k : {k1, k2, k3}) {
    EXPECT_EQ(c.placements()[k].api, int64_t(launch));
    EXPECT_EQ(c.placements()[k].capturedBy, 7u);
  }
  EXPECT_EQ(c.apiPoints()[launch].fn, 8u);
  EXPECT_EQ(c.quality().unmatchedLaunches, 0u)
      << "captured launches owe no kernel";
  EXPECT_EQ(c.quality().overlapMoves, 0u);
}

TEST(GpuCorrelation, FaultsAreCountedExactly) {
  Records r;
  r.api(1, 100, 110, 1);                          // launch, no kernel
  r.api(1, 200, 210, 2, "cudaMemcpyAsync");       // copy, no record
  r.api(1, 300, 310, 3, "cudaStreamSynchronize"); // not a launch
  r.api(1, 400, 410, 4, "cudaLaunchHostFunc");    // runs on the host
  // The runtime call owns the work; the driver call inside it is not owed.
  r.api(1, 500, 520, 5);
  r.api(1, 505, 515, 6, "cuLaunchKernel", true);
  r.work(530, 540, 5);
  r.work(600, 610, 99);  // no launch
  r.work(0, 0, 5);       // untimed
  r.work(50, 60, 5);     // before its launch
  r.work(5000, 5100, 5); // after the run ended
  GpuCorrelation c(std::move(r.data), 0, 1000);
  correlate(c, {});
  const GpuQuality &q = c.quality();
  EXPECT_EQ(q.records, 11u);
  EXPECT_EQ(q.unmatchedLaunches, 2u);
  EXPECT_EQ(q.unmatchedGpuRecords, 1u);
  EXPECT_EQ(q.zeroTimestamps, 1u);
  EXPECT_EQ(q.startsBeforeLaunch, 1u);
  EXPECT_EQ(q.outsideRun, 1u);
}

/// Records on one row never overlap: the property that makes the trace nest.
void expectRowsNest(const GpuCorrelation &c) {
  std::map<std::tuple<uint32_t, uint32_t, bool, uint32_t>,
           std::vector<std::pair<uint64_t, uint64_t>>>
      rows;
  const auto &work = c.data().work;
  for (size_t k = 0; k < work.size(); ++k)
    if (c.placements()[k].written)
      rows[{c.deviceOf(work[k]), work[k].stream,
            work[k].kind == PERFRT_GPU_SYNC, c.placements()[k].row}]
          .emplace_back(work[k].start, work[k].end);
  for (auto &[row, spans] : rows) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first) << "overlap on a row";
  }
}

TEST(GpuCorrelation, OverlappingKernelsOnAStreamGetOverflowRows) {
  Records r;
  r.api(1, 10, 20, 1);
  r.api(1, 30, 40, 2);
  r.api(1, 50, 60, 3);
  uint32_t a = r.work(100, 300, 1);
  uint32_t b = r.work(150, 250, 2); // overlaps a (PDL-style)
  uint32_t d = r.work(200, 400, 3); // overlaps both
  uint32_t e = r.work(400, 450, 1); // fits back on row 0 (touching)
  GpuCorrelation c(std::move(r.data), 0, 1000);
  correlate(c, {});
  EXPECT_EQ(c.placements()[a].row, 0u);
  EXPECT_EQ(c.placements()[b].row, 1u);
  EXPECT_EQ(c.placements()[d].row, 2u);
  EXPECT_EQ(c.placements()[e].row, 0u);
  EXPECT_EQ(c.quality().overlapMoves, 2u);
  expectRowsNest(c);
}

TEST(GpuCorrelation, SyncRecordsTakeTheirContextsDevice) {
  Records r;
  r.api(1, 10, 20, 1);
  r.work(30, 40, 1);
  r.api(1, 50, 90, 2, "cudaStreamSynchronize");
  uint32_t s = r.work(50, 90, 2, 7, PERFRT_GPU_SYNC);
  GpuCorrelation c(std::move(r.data), 0, 1000);
  correlate(c, {});
  EXPECT_EQ(c.deviceOf(c.data().work[s]), 0u);
  EXPECT_EQ(c.placements()[s].api, 1);
}

/// A random run with faults injected in known numbers; the counters must
/// equal them, rows must nest, and nothing may depend on the order the
/// records arrived in.
struct RandomRun {
  Records run;
  std::vector<Span> spans;
  uint64_t unmatchedLaunches = 0, unmatchedRecords = 0, untimed = 0;
};

RandomRun makeRandomRun(uint32_t seed) {
  std::mt19937 rng(seed);
  RandomRun out;
  uint32_t corr = 1;
  for (uint32_t tid = 1; tid <= 3; ++tid) {
    uint64_t t = 1000 * tid;
    for (int call = 0; call < 40; ++call) {
      // A function with one or two launches inside, on stream 1 or 2.
      uint64_t fnStart = t;
      int launches = 1 + int(rng() % 2);
      for (int l = 0; l < launches; ++l) {
        uint64_t s = t + 5 + rng() % 10;
        out.run.api(tid, s, s + 20, corr);
        switch (rng() % 10) {
        case 0:
          ++out.unmatchedLaunches; // its kernel was lost
          break;
        case 1:
          out.run.work(0, 0, corr, 1 + rng() % 2);
          ++out.untimed;
          break;
        default: {
          uint64_t ks = s + 30 + rng() % 200;
          out.run.work(ks, ks + 10 + rng() % 300, corr, 1 + rng() % 2);
        }
        }
        ++corr;
        t = s + 25;
      }
      out.spans.push_back({tid, fnStart, t + 5, uint32_t(1 + call % 5)});
      t += 10 + rng() % 20;
    }
  }
  for (int orphan = 0; orphan < 5; ++orphan) {
    out.run.work(100000 + orphan * 10, 100005 + orphan * 10, 900000 + orphan);
    ++out.unmatchedRecords;
  }
  return out;
}

TEST(GpuCorrelation, RandomRunsCountWhatWasInjectedWhateverTheArrivalOrder) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    RandomRun base = makeRandomRun(seed);
    GpuData copy = base.run.data;
    GpuCorrelation c(std::move(base.run.data), 0, 1u << 30);
    correlate(c, base.spans);
    EXPECT_EQ(c.quality().unmatchedLaunches, base.unmatchedLaunches);
    EXPECT_EQ(c.quality().unmatchedGpuRecords, base.unmatchedRecords);
    EXPECT_EQ(c.quality().zeroTimestamps, base.untimed);
    expectRowsNest(c);

    // The same records in another arrival order, with threads' spans
    // interleaved differently (each thread's own order kept).
    std::mt19937 rng(seed * 7919);
    std::vector<size_t> apiOrder(copy.apis.size()), workOrder(copy.work.size());
    for (size_t i = 0; i < apiOrder.size(); ++i)
      apiOrder[i] = i;
    for (size_t i = 0; i < workOrder.size(); ++i)
      workOrder[i] = i;
    std::shuffle(apiOrder.begin(), apiOrder.end(), rng);
    std::shuffle(workOrder.begin(), workOrder.end(), rng);
    GpuData shuffled = copy;
    for (size_t i = 0; i < apiOrder.size(); ++i)
      shuffled.apis[i] = copy.apis[apiOrder[i]];
    for (size_t i = 0; i < workOrder.size(); ++i)
      shuffled.work[i] = copy.work[workOrder[i]];
    std::vector<Span> interleaved;
    std::map<uint32_t, std::vector<Span>> perThread;
    for (const Span &s : base.spans)
      perThread[s.tid].push_back(s);
    std::map<uint32_t, size_t> next;
    while (interleaved.size() < base.spans.size()) {
      uint32_t tid = 1 + rng() % 3;
      if (next[tid] < perThread[tid].size())
        interleaved.push_back(perThread[tid][next[tid]++]);
    }
    GpuCorrelation d(std::move(shuffled), 0, 1u << 30);
    correlate(d, interleaved);

    // Same function, row and launch for every record, keyed by content.
    auto view = [](const GpuCorrelation &g) {
      std::map<std::tuple<uint32_t, uint64_t, uint64_t>,
               std::tuple<uint32_t, uint32_t, int64_t>>
          out;
      for (size_t k = 0; k < g.data().work.size(); ++k) {
        const perfrt_gpu_work &w = g.data().work[k];
        const GpuWorkPlacement &p = g.placements()[k];
        uint32_t launcher = p.api >= 0 ? g.apiPoints()[size_t(p.api)].fn : 0;
        int64_t launchCorr =
            p.api >= 0 ? int64_t(g.data().apis[size_t(p.api)].correlation) : -1;
        out[{w.correlation, w.start, w.end}] = {launcher, p.row, launchCorr};
      }
      return out;
    };
    EXPECT_EQ(view(c), view(d)) << "seed " << seed;
    EXPECT_EQ(c.quality().overlapMoves, d.quality().overlapMoves);
  }
}

} // namespace
