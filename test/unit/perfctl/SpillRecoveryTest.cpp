// perfctl trace recover's reader and writer on spills built here, frame by
// frame, as perfcc/SpillFormat.h describes them: a whole spill, one cut in
// the middle of a frame (a kill -9 during a write), one with a corrupt
// frame, a ring whose slots are out of order and one of them torn, and files
// that are no spill at all. What the runtime writes is checked end to end by
// test/lit/e2e/recover-after-kill.test.
#include "trace/SpillRecovery.h"
#include "trace/SpillReader.h"

#include "perfcc/OutputSchema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace perfcc;
using namespace perfcc::perfctl;
namespace fs = std::filesystem;

namespace {

/// Builds a spill's bytes.
class SpillBuilder {
public:
  explicit SpillBuilder(uint64_t ringSlots = 0, uint64_t slotBytes = 0) {
    spill::FileHeader h{};
    std::memcpy(h.magic, spill::Magic, sizeof h.magic);
    h.version = spill::Version;
    h.headerBytes = sizeof h;
    h.recordBytes = sizeof(spill::Record);
    h.chunkRecords = 8191;
    h.pid = 4242;
    h.ringSlots = ringSlots;
    h.slotBytes = slotBytes;
    put(&h, sizeof h);
    bytes.resize(bytes.size() + ringSlots * slotBytes);
  }

  void run(uint64_t tsc0, uint64_t mono0) {
    spill::RunPayload p{};
    p.pid = 4242;
    p.useTsc = 1;
    p.tsc0 = tsc0;
    p.mono0 = mono0;
    std::string program = "app", reason = "tsc (test)";
    p.programBytes = uint32_t(program.size());
    p.reasonBytes = uint32_t(reason.size());
    frame(spill::KindRun, blob(&p, sizeof p) + program + reason);
  }
  void function(uint32_t id, const std::string &name) {
    spill::FunctionPayload p{};
    p.id = id;
    p.line = 10 * id;
    std::string mangled = "_Z" + name, file = "/src/app.cpp";
    p.nameBytes = uint32_t(name.size());
    p.mangledBytes = uint32_t(mangled.size());
    p.fileBytes = uint32_t(file.size());
    frame(spill::KindFunction, blob(&p, sizeof p) + name + mangled + file);
  }
  void thread(uint32_t tid, const std::string &name) {
    spill::ThreadPayload p{tid, uint32_t(name.size())};
    frame(spill::KindThread, blob(&p, sizeof p) + name);
  }
  void progress(uint32_t id, const std::string &name) {
    spill::ProgressPayload p{id, 0, uint32_t(name.size()), 0};
    frame(spill::KindProgress, blob(&p, sizeof p) + name);
  }
  void clock(uint64_t ticks, uint64_t ns) {
    spill::ClockPayload p{ticks, ns};
    frame(spill::KindClock, blob(&p, sizeof p));
  }
  /// A chunk of calls of \p fn on \p tid: each 100 ticks long, starting
  /// at \p start, 200 ticks apart.
  std::string chunkPayload(uint32_t tid, uint32_t fn, uint32_t calls,
                           uint64_t start) {
    spill::ChunkPayload p{tid, calls, 0};
    std::string payload = blob(&p, sizeof p);
    for (uint32_t i = 0; i < calls; ++i) {
      spill::Record r{start + 200 * i, start + 200 * i + 100, 60, fn, 0};
      payload += blob(&r, sizeof r);
    }
    return payload;
  }
  void chunk(uint32_t tid, uint32_t fn, uint32_t calls, uint64_t start) {
    frame(spill::KindChunk, chunkPayload(tid, fn, calls, start));
  }
  /// A chunk of \p calls calls of 100 ticks, each followed by its CPU time
  /// record (PERFCC_CPU_TIME): \p cpuNs inclusive and exclusive.
  void cpuChunk(uint32_t tid, uint32_t fn, uint32_t calls, uint64_t start,
                uint64_t cpuNs) {
    spill::ChunkPayload p{tid, 2 * calls, 0};
    std::string payload = blob(&p, sizeof p);
    for (uint32_t i = 0; i < calls; ++i) {
      spill::Record r{start + 200 * i, start + 200 * i + 100, 60, fn, 0};
      spill::Record cpu{cpuNs, cpuNs, 0, fn, spill::FlagCpu};
      payload += blob(&r, sizeof r) + blob(&cpu, sizeof cpu);
    }
    frame(spill::KindChunk, payload);
  }
  /// A chunk in ring slot \p slot, with sequence number \p seq.
  void slotChunk(uint64_t slot, uint64_t slotBytes, uint64_t seq, uint32_t tid,
                 uint32_t fn, uint32_t calls, uint64_t start) {
    std::string f =
        frameBytes(spill::KindChunk, seq, chunkPayload(tid, fn, calls, start));
    std::memcpy(&bytes[sizeof(spill::FileHeader) + slot * slotBytes], f.data(),
                f.size());
  }
  void frame(uint32_t kind, const std::string &payload) {
    bytes += frameBytes(kind, seq++, payload);
  }
  std::string frameBytes(uint32_t kind, uint64_t frameSeq,
                         const std::string &payload) {
    spill::FrameHeader h{};
    h.magic = spill::FrameMagic;
    h.kind = kind;
    h.payloadBytes = uint32_t(payload.size());
    h.seq = frameSeq;
    h.hash = spill::frameHash(kind, frameSeq, payload.data(),
                              uint32_t(payload.size()));
    return blob(&h, sizeof h) + payload;
  }
  void put(const void *p, size_t n) { bytes += blob(p, n); }
  static std::string blob(const void *p, size_t n) {
    return std::string(static_cast<const char *>(p), n);
  }

  std::string bytes;
  uint64_t seq = 1000;
};

class SpillRecovery : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("spill-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string write(const std::string &bytes) {
    std::string path = (dir / ".app.4242.spans").string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  /// A run of 1 GHz ticks (1 ns each) from tick 1000 at 5000 ns, main and
  /// worker threads, two functions and a progress point.
  static SpillBuilder started() {
    SpillBuilder b;
    b.run(1000, 5000);
    b.function(1, "app::step");
    b.function(2, "app::main_loop");
    b.thread(7, "main");
    b.progress(1, "items");
    b.clock(2000, 6000);
    return b;
  }
  nlohmann::json load(const std::string &path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
  }

  fs::path dir;
};

TEST_F(SpillRecovery, AWholeSpillGivesTheRunsTraceAndSummary) {
  SpillBuilder b = started();
  b.chunk(7, 1, 3, 3000);
  b.thread(8, "worker");
  b.clock(9000, 13000);
  b.chunk(8, 2, 2, 8000);
  std::string path = write(b.bytes);
  SpillReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error)) << error;
  const SpillIndex &index = reader.index();
  EXPECT_EQ(index.program, "app");
  EXPECT_EQ(index.pid, 4242u);
  EXPECT_EQ(index.cut, "");
  EXPECT_EQ(index.chunks.size(), 2u);
  EXPECT_EQ(index.functions.at(2).name, "app::main_loop");
  EXPECT_EQ(index.threadNames.at(8), "worker");

  RecoveredFiles files;
  ASSERT_TRUE(recoverSpill(reader, path, dir.string(), files, error)) << error;
  EXPECT_EQ(files.calls, 5u);
  nlohmann::json trace = load(files.trace);
  namespace key = schema::trace;
  int spans = 0;
  for (const auto &e : trace[key::Events])
    if (e[key::Phase] == key::PhaseComplete) {
      ++spans;
      EXPECT_EQ(e[key::Dur].get<double>(), 0.1); // 100 ticks of 1 ns
    }
  EXPECT_EQ(spans, 5);
  // The first call starts at tick 3000: 5000 ns + 2000 ticks of 1 ns.
  EXPECT_EQ(trace[key::Events][0][key::Ts].get<double>(), 7.0);
  EXPECT_TRUE(
      trace[key::Metadata][key::MetaRecovered][key::RecoveredCut].is_null());
  nlohmann::json summary = load(files.summary);
  namespace skey = schema::summary;
  ASSERT_EQ(summary[skey::Functions].size(), 2u);
  // Three calls of 100 ns are hotter than two.
  EXPECT_EQ(summary[skey::Functions][0][skey::Name], "app::step");
  EXPECT_EQ(summary[skey::Functions][0][skey::Calls], 3);
  EXPECT_EQ(summary[skey::Functions][0][skey::InclusiveNs][skey::Total], 300);
  EXPECT_EQ(summary[skey::Functions][0][skey::ExclusiveNs][skey::P50], 60);
  EXPECT_EQ(summary[skey::Threads].size(), 2u);
}

TEST_F(SpillRecovery, AFrameCutShortKeepsEverythingBeforeIt) {
  SpillBuilder b = started();
  b.chunk(7, 1, 3, 3000);
  size_t whole = b.bytes.size();
  b.clock(9000, 13000);
  b.chunk(7, 1, 50, 9000);
  // kill -9 in the middle of the last chunk's write.
  std::string path = write(b.bytes.substr(0, b.bytes.size() - 700));
  SpillReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error)) << error;
  EXPECT_EQ(reader.index().chunks.size(), 1u);
  EXPECT_NE(reader.index().cut.find("a chunk frame cut short"),
            std::string::npos)
      << reader.index().cut;
  EXPECT_GT(reader.index().cutOffset, whole);
  RecoveredFiles files;
  ASSERT_TRUE(recoverSpill(reader, path, dir.string(), files, error)) << error;
  EXPECT_EQ(files.calls, 3u);
  nlohmann::json trace = load(files.trace);
  EXPECT_TRUE(trace[schema::trace::Metadata][schema::trace::MetaRecovered]
                   [schema::trace::RecoveredCut]
                       .is_string());
}

TEST_F(SpillRecovery, ACorruptFrameStopsTheReadingThere) {
  SpillBuilder b = started();
  b.chunk(7, 1, 3, 3000);
  size_t second = b.bytes.size();
  b.chunk(7, 1, 3, 4000);
  b.chunk(7, 1, 3, 5000);
  b.bytes[second + sizeof(spill::FrameHeader) + 40] ^= 1; // one flipped bit
  SpillReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(write(b.bytes), error)) << error;
  EXPECT_EQ(reader.index().chunks.size(), 1u);
  EXPECT_NE(reader.index().cut.find("hash does not match"), std::string::npos)
      << reader.index().cut;
}

TEST_F(SpillRecovery, ARingIsReadOldestFirstAndATornSlotIsSkipped) {
  const uint64_t slotBytes = 4096;
  SpillBuilder b(3, slotBytes);
  b.run(1000, 5000);
  b.function(1, "app::step");
  b.thread(7, "main");
  b.clock(2000, 6000);
  b.clock(90000, 94000);
  // The ring went round: slot 1 holds the oldest chunk, slot 0 the newest.
  b.slotChunk(0, slotBytes, 30, 7, 1, 2, 50000);
  b.slotChunk(1, slotBytes, 10, 7, 1, 2, 10000);
  b.slotChunk(2, slotBytes, 20, 7, 1, 2, 30000);
  SpillBuilder torn = b;
  SpillReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(write(b.bytes), error)) << error;
  ASSERT_EQ(reader.index().chunks.size(), 3u);
  EXPECT_EQ(reader.index().chunks[0].seq, 10u);
  EXPECT_EQ(reader.index().chunks[2].seq, 30u);

  // A write torn in slot 2: the other two are kept.
  torn.bytes[sizeof(spill::FileHeader) + 2 * slotBytes + 60] ^= 0x40;
  ASSERT_TRUE(reader.open(write(torn.bytes), error)) << error;
  EXPECT_EQ(reader.index().chunks.size(), 2u);
  EXPECT_EQ(reader.index().badSlots, 1u);
}

TEST_F(SpillRecovery, WhatIsNoSpillIsOneClearLine) {
  SpillReader reader;
  std::string error;
  EXPECT_FALSE(reader.open((dir / "missing").string(), error));
  EXPECT_EQ(error, "No such file or directory");
  EXPECT_FALSE(reader.open(write("{\"traceEvents\":[]}"), error));
  EXPECT_EQ(error, "not a perfcc spill file (no spill header)");
  SpillBuilder future;
  future.bytes[8] = 9; // version 9
  EXPECT_FALSE(reader.open(write(future.bytes), error));
  EXPECT_EQ(error, "a spill of format version 9; this perfctl reads version 1");
  // A header and nothing else: the run never wrote its first frame.
  EXPECT_FALSE(reader.open(write(SpillBuilder().bytes), error));
  EXPECT_EQ(error, "no run frame: nothing in it can be read");
}

TEST_F(SpillRecovery, RecordsOfUnnamedFunctionsAreCountedNotInvented) {
  SpillBuilder b = started();
  b.chunk(7, 9, 4, 3000); // function 9 was never described
  b.chunk(7, 1, 1, 4000);
  std::string path = write(b.bytes);
  SpillReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error)) << error;
  RecoveredFiles files;
  ASSERT_TRUE(recoverSpill(reader, path, dir.string(), files, error)) << error;
  EXPECT_EQ(files.calls, 1u);
  EXPECT_EQ(files.unnamed, 4u);
  // Recovering again never overwrites what the first recovery wrote.
  EXPECT_FALSE(recoverSpill(reader, path, dir.string(), files, error));
  EXPECT_NE(error.find("already there"), std::string::npos) << error;
}

TEST_F(SpillRecovery, CpuTimesReachTheTraceAndTheSummary) {
  // PERFCC_CPU_TIME: each span followed by its CPU time. The recovered
  // trace gives each call tdur (at most its dur), the summary cpu_ns; the
  // CPU records are not calls.
  SpillBuilder b = started();
  b.cpuChunk(7, 1, 3, 3000, 40);
  std::string path = write(b.bytes);
  SpillReader reader;
  std::string error;
  ASSERT_TRUE(reader.open(path, error)) << error;
  RecoveredFiles files;
  ASSERT_TRUE(recoverSpill(reader, path, dir.string(), files, error)) << error;
  EXPECT_EQ(files.calls, 3u);
  EXPECT_EQ(files.unnamed, 0u);
  nlohmann::json trace = load(files.trace);
  namespace key = schema::trace;
  int spans = 0;
  for (const auto &e : trace[key::Events])
    if (e[key::Phase] == key::PhaseComplete) {
      ++spans;
      EXPECT_EQ(e[key::ThreadDur].get<double>(), 0.04);
    }
  EXPECT_EQ(spans, 3);
  EXPECT_EQ(trace[key::Metadata][key::MetaCpuTime], true);
  nlohmann::json summary = load(files.summary);
  namespace skey = schema::summary;
  EXPECT_EQ(summary[skey::CpuTime], true);
  const auto &cpu = summary[skey::Functions][0][skey::CpuNs];
  EXPECT_EQ(cpu[skey::Calls], 3);
  EXPECT_EQ(cpu[skey::CpuInclusive], 120);
  EXPECT_EQ(cpu[skey::CpuExclusive], 120);
}

} // namespace
