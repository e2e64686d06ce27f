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

// The writer's checkpoint: a live chunk whose oldest unwritten record has
// aged gives its new records once, as a chunk of their own; what follows is
// written after them, never twice.
std::vector<std::vector<uint64_t>> pieces; // each piece's records' ends
void collectPiece(SpanChunk *c) {
  std::vector<uint64_t> ends;
  for (uint32_t i = c->spilled; i < c->count; ++i)
    ends.push_back(c->records[i].end);
  pieces.push_back(ends);
}
void appendEnding(ThreadState *t, uint64_t end) {
  SpanRecord r{end - 1, end, 1, 7, 0};
  if (!t->chunk || t->chunk->count == ChunkRecords)
    spansAppendSlow(t, r);
  else
    storeSpan(t->chunk, r);
}

bool checkpointsSpillOnce() {
  pieces.clear();
  ThreadState *t = createThreadState();
  for (uint64_t end : {10, 11, 12})
    appendEnding(t, end);
  bool ok = true;
  // Stored at tick 10, so aged at 1,010 with an age of 1,000.
  ok &= spansCheckpoint(1009, 1000, collectPiece) == 0;
  ok &= spansCheckpoint(1010, 1000, collectPiece) == 1;
  ok &= spansCheckpoint(5000, 1000, collectPiece) == 0; // nothing new
  for (uint64_t end : {2000, 2001})
    appendEnding(t, end);
  ok &= spansCheckpoint(2500, 1000, collectPiece) == 0; // too young
  ok &= spansCheckpoint(3000, 1000, collectPiece) == 1;
  appendEnding(t, 3100);
  // The exit hands over the one record no checkpoint took.
  spansPublish(t->chunk);
  t->chunk = nullptr;
  // A thread whose every record was checkpointed hands over nothing.
  ThreadState *quiet = createThreadState();
  appendEnding(quiet, 50);
  ok &= spansCheckpoint(9000, 1000, collectPiece) == 1;
  spansPublish(quiet->chunk);
  quiet->chunk = nullptr;
  drained.clear();
  spansDrainQueue(countSpans);
  ok &= pieces ==
        std::vector<std::vector<uint64_t>>{{10, 11, 12}, {2000, 2001}, {50}};
  ok &= drained == std::vector<uint32_t>{1};
  return ok;
}

bool checkpointKeepsPairs() {
  pieces.clear();
  ThreadState *t = createThreadState();
  appendEnding(t, 10);
  SpanRecord span{5, 20, 1, 7, 0}, cpu{3, 2, 0, 7, SpanCpu};
  spansAppendPair(t, span, cpu);
  return spansCheckpoint(5000, 1000, collectPiece) == 1 && pieces.size() == 1 &&
         pieces[0].size() == 3 && t->chunk->records[2].flags == SpanCpu;
}

// In child processes: chunks drained or left live are never given back.
TEST_F(ChunkPool, ACheckpointSpillsAgedRecordsOnceAndTheRestLater) {
  EXPECT_EXIT(std::exit(checkpointsSpillOnce() ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
}

// A span and its CPU record are published together, so a checkpoint never
// takes one without the other.
TEST_F(ChunkPool, ACheckpointNeverSplitsASpanFromItsCpuTime) {
  EXPECT_EXIT(std::exit(checkpointKeepsPairs() ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
}

} // namespace
