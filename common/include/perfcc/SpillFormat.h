//===- SpillFormat.h - the spill file, readable after a crash --*- C++ -*-===//
//
// In trace mode the runtime's writer thread appends completed calls, 256 KiB
// chunks at a time, to `.<program>.<pid>.spans` in the output folder, and the
// end of the run turns them into the trace. A run that never reaches its end
// (kill -9, an OOM kill, a power cut) leaves only that file, so the file says
// everything a reader needs on its own: the run (program, pid, clock), each
// function, thread and progress point as it first appears, pairs of clock
// readings to convert ticks to time, and the chunks. Every piece is a frame
// with its own length, sequence number and hash, so a reader
// (`perfctl trace recover`) keeps every whole frame up to the first torn or
// corrupt one and says where the file was cut. The runtime writes it and
// perfctl reads it through these definitions only.
//
// Layout (little-endian, x86-64):
//   FileHeader (64 bytes)
//   keep-first (ringSlots == 0): frames, appended in sequence order
//   keep-last (ringSlots > 0): ringSlots slots of slotBytes, each holding one
//     chunk frame (overwritten oldest first: order by sequence number), then
//     the other frames, appended
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_SPILLFORMAT_H
#define PERFCC_SPILLFORMAT_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>

namespace perfcc::spill {

constexpr char Magic[8] = {'P', 'E', 'R', 'F', 'S', 'P', 'L', 'L'};
constexpr uint32_t Version = 1;

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t headerBytes; // sizeof(FileHeader)
  uint32_t recordBytes; // sizeof(Record)
  uint32_t chunkRecords;
  uint32_t pid;
  uint32_t reserved0;
  uint64_t ringSlots; // 0: frames appended (PERFCC_TRACE_KEEP=first)
  uint64_t slotBytes; // one ring slot: a chunk frame at its largest
  uint64_t reserved[2];
};
static_assert(sizeof(FileHeader) == 64, "fixed layout");

constexpr uint32_t FrameMagic = 0x4d524650; // "PFRM"

enum FrameKind : uint32_t {
  KindRun = 1,      // RunPayload + program + clock reason
  KindFunction = 2, // FunctionPayload + name + mangled + file
  KindThread = 3,   // ThreadPayload + name (again when the name changes)
  KindProgress = 4, // ProgressPayload + name
  KindClock = 5,    // ClockPayload
  KindChunk = 6,    // ChunkPayload + count Records
};

struct FrameHeader {
  uint32_t magic;
  uint32_t kind;
  uint32_t payloadBytes;
  uint32_t reserved;
  uint64_t seq;  // 0, 1, 2... in the order the frames were written
  uint64_t hash; // frameHash of the payload
};
static_assert(sizeof(FrameHeader) == 32, "fixed layout");

/// No frame is larger: a chunk of 8191 records is 262 KiB; strings are
/// capped by the writer.
constexpr uint32_t MaxPayloadBytes = 1u << 20;

struct RunPayload {
  uint32_t pid;
  uint32_t useTsc; // 1: ticks are TSC cycles; 0: they are CLOCK_MONOTONIC ns
  uint64_t tsc0;   // ticks and CLOCK_MONOTONIC ns read together at start-up
  uint64_t mono0;
  uint32_t programBytes;
  uint32_t reasonBytes;
};
static_assert(sizeof(RunPayload) == 32, "fixed layout");

struct FunctionPayload {
  uint32_t id; // as in Record::fn
  uint32_t line;
  uint32_t nameBytes, mangledBytes, fileBytes;
  uint32_t reserved;
};
static_assert(sizeof(FunctionPayload) == 24, "fixed layout");

struct ThreadPayload {
  uint32_t tid;
  uint32_t nameBytes;
};

/// ProgressPayload::kind: perf.h's PERF_PROGRESS_THROUGHPUT and
/// PERF_PROGRESS_LATENCY (the runtime asserts they agree).
constexpr uint32_t ProgressThroughput = 0;
constexpr uint32_t ProgressLatency = 1;

struct ProgressPayload {
  uint32_t id;   // as in a counter Record's fn (1-based)
  uint32_t kind; // ProgressThroughput or ProgressLatency
  uint32_t nameBytes;
  uint32_t reserved;
};

/// A (ticks, CLOCK_MONOTONIC ns) pair read together: a reader fits ticks to
/// time through all of them.
struct ClockPayload {
  uint64_t ticks;
  uint64_t monoNs;
};

struct ChunkPayload {
  uint32_t tid;
  uint32_t count;
  uint64_t owner; // the runtime's own handle: meaningless to a reader
};
static_assert(sizeof(ChunkPayload) == 16, "fixed layout");

/// One completed call (or speed bump, or progress point hit); times in
/// ticks. The runtime's SpanRecord, byte for byte.
struct Record {
  uint64_t start, end, exclusive;
  uint32_t fn, flags;
};
static_assert(sizeof(Record) == 32, "fixed layout");

/// Record::flags.
enum RecordFlags : uint32_t {
  FlagUnwind = 1,     // left by an exception
  FlagAbandoned = 2,  // skipped by longjmp or an unprobed unwinding frame
  FlagUnfinished = 4, // still open when the trace was written
  FlagDelay = 8,      // a speed bump (exclusive = the requested ticks)
  FlagCounter = 16,   // a progress point hit (fn = point, exclusive = count)
  FlagHolding = 32,   // a speed bump paid holding a mutex
  // The CPU time of the span just before it, in the same chunk (start: its
  // inclusive, end: its exclusive CPU ns; PERFCC_CPU_TIME).
  FlagCpu = 64,
};

/// The hash a frame carries: its payload's, seeded by its kind, length and
/// sequence number, so a frame from another place or an older lap of the
/// ring does not pass for this one.
inline uint64_t frameSeed(uint32_t kind, uint64_t seq, uint32_t bytes) {
  return (seq * 0x9E3779B97F4A7C15ull) ^ (uint64_t(kind) << 32 | bytes);
}

/// frameHash of a payload given in one piece (a writer with several pieces
/// streams them: XXH3_64bits_reset_withSeed with frameSeed, then update).
inline uint64_t frameHash(uint32_t kind, uint64_t seq, const void *payload,
                          uint32_t bytes) {
  return XXH3_64bits_withSeed(payload, bytes, frameSeed(kind, seq, bytes));
}

} // namespace perfcc::spill

#endif // PERFCC_SPILLFORMAT_H
