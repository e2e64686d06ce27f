// The trace chunk pool with the writer held off: what an exiting thread
// hands over must not pin a whole chunk, or a program whose threads each make
// a few calls fills PERFCC_BUFFER_MB (and drops spans) whenever the writer
// waits for a CPU, as it did under CI on a 2-vCPU machine: 10,000 threads of
// 11 calls dropped 2,981 spans.
#include "perfrt_record.h"
#include "perfrt_spans.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

using namespace perfrt;

namespace {

std::vector<uint32_t> drained; // each drained chunk's span count
void countSpans(SpanChunk *c) { drained.push_back(c->count); }

class ChunkPool : public ::testing::Test {
protected:
  void SetUp() override {
    threadsInit();
    spansInit(2 * ChunkBytes);
    spansStopWriter(false); // never started: chunks stay queued
    drained.clear();
    gRt.trace = gRt.spans = true;
  }
  // A forked child's reset: a fresh lock, no writer, the queue recycled.
  void TearDown() override {
    spansAfterFork();
    gRt.trace = gRt.spans = false;
  }

  /// One short-lived thread: \p calls spans, then its exit hand-over.
  ThreadState *liveAndExit(uint32_t calls) {
    ThreadState *t = createThreadState();
    for (uint32_t i = 0; i < calls; ++i) {
      SpanRecord r{i, i + 1, 1, 7, 0};
      if (i == 0 || !t->chunk)
        spansAppendSlow(t, r);
      else
        t->chunk->records[t->chunk->count++] = r;
    }
    if (t->chunk) {
      spansPublish(t->chunk);
      t->chunk = nullptr;
    }
    return t;
  }
};

TEST_F(ChunkPool, ThreadsEndingWhileTheWriterWaitsDropNothing) {
  // Two chunks of memory; 500 threads of 11 spans each hand theirs over and
  // nothing is written meanwhile: 500 compact copies of 384 bytes.
  uint64_t dropped = 0;
  for (int i = 0; i < 500; ++i)
    dropped += liveAndExit(11)->droppedSpans;
  EXPECT_EQ(dropped, 0u);
}

TEST_F(ChunkPool, CompactCopiesStayWithinTheCap) {
  // Copies of 1,000 spans (32,032 bytes): beside the one pool chunk, the two
  // chunks' worth of memory holds 8 of them. The 9th thread's chunk waits
  // whole, and the last three threads find no memory: dropped, counted.
  uint64_t dropped = 0;
  for (int i = 0; i < 12; ++i)
    dropped += liveAndExit(1000)->droppedSpans;
  EXPECT_EQ(dropped, 3000u);
}

// In summary mode the spans are only for the aggregates: one that finds no
// memory is charged to its thread's own table, and nothing is lost.
TEST_F(ChunkPool, SummaryModeChargesWhatFindsNoMemory) {
  gRt.trace = false;
  uint64_t dropped = 0, charged = 0;
  for (int i = 0; i < 12; ++i) {
    ThreadState *t = liveAndExit(1000);
    dropped += t->droppedSpans;
    if (const FnStats *s = t->stats.find(7))
      charged += s->calls;
  }
  EXPECT_EQ(dropped, 0u);
  EXPECT_EQ(charged, 3000u); // the three threads the cap turned away
}

// A compact copy and a whole chunk alike reach the end of the run with all
// their spans. In a child process: the drained chunks are the exit's, never
// given back, which would leave the pool smaller for the other tests.
TEST_F(ChunkPool, QueuedChunksReachTheDrainWhole) {
  EXPECT_EXIT(
      {
        for (uint32_t calls : {11u, 1000u, 3000u})
          liveAndExit(calls);
        spansDrainQueue(countSpans);
        std::exit(drained == std::vector<uint32_t>{11, 1000, 3000} ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

} // namespace
