//===- perfrt_spill.cpp - the spill file: chunks on disk, crash-safe ------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_spill.h"

#include "perfrt_clock.h"
#include "perfrt_output_files.h"
#include "perfrt_progress.h"
#include "perfrt_registry.h"
#include "perfrt_runtime.h"
#include "perfrt_spans.h"
#include "perfrt_thread.h"

#include "perf/perf.h"
#include "perfcc/SpillFormat.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

namespace perfrt {

namespace spill = perfcc::spill;

static_assert(sizeof(SpanRecord) == sizeof(spill::Record), "same records");
static_assert(uint32_t(SpanUnwind) == spill::FlagUnwind &&
                  uint32_t(SpanAbandoned) == spill::FlagAbandoned &&
                  uint32_t(SpanUnfinished) == spill::FlagUnfinished &&
                  uint32_t(SpanDelay) == spill::FlagDelay &&
                  uint32_t(SpanCounter) == spill::FlagCounter &&
                  uint32_t(SpanHolding) == spill::FlagHolding &&
                  uint32_t(SpanCpu) == spill::FlagCpu,
              "the spill's flags are the runtime's");
static_assert(spill::ProgressThroughput == PERF_PROGRESS_THROUGHPUT &&
                  spill::ProgressLatency == PERF_PROGRESS_LATENCY,
              "the spill's progress kinds are perf.h's");

namespace {

constexpr uint64_t SlotBytes = sizeof(spill::FrameHeader) +
                               sizeof(spill::ChunkPayload) +
                               ChunkRecords * sizeof(SpanRecord);
constexpr uint32_t MaxStringBytes = 4096;
constexpr uint64_t SyncEveryNs = 1000000000;

int fd = -1;
bool failed = false;
char path[4096];
uint64_t seq = 0;              // next frame's sequence number
uint64_t appendAt = 0;         // where the next appended frame goes
uint64_t chunkBytes = 0;       // keep-first: bytes of chunk frames, for the cap
uint64_t ringChunks = 0;       // keep-last: chunks written so far
uint64_t ringSlots = 0;        // keep-last: slots in the ring (0: keep-first)
uint32_t functionsWritten = 0; // registry ids 1..this are in the file
unsigned progressWritten = 0;
uint64_t lastSyncNs = 0;
SpanChunk readBuffer; // one chunk read back at a time (static: 256 KiB)

// Thread names written, by tid: a name is written again when it changes.
constexpr unsigned NameSlots = 16384;
struct WrittenName {
  uint32_t tid;
  uint32_t hash;
};
WrittenName names[NameSlots];

bool writeAt(uint64_t at, const iovec *parts, int count) {
  size_t total = 0;
  for (int i = 0; i < count; ++i)
    total += parts[i].iov_len;
  iovec rest[8];
  std::memcpy(rest, parts, sizeof(iovec) * size_t(count));
  iovec *v = rest;
  while (total) {
    ssize_t n = ::pwritev(fd, v, count, off_t(at));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    at += uint64_t(n);
    total -= size_t(n);
    while (count && size_t(n) >= v->iov_len) {
      n -= ssize_t(v->iov_len);
      ++v;
      --count;
    }
    if (count) {
      v->iov_base = static_cast<char *>(v->iov_base) + n;
      v->iov_len -= size_t(n);
    }
  }
  return true;
}

bool readAt(uint64_t at, void *data, size_t size) {
  char *p = static_cast<char *>(data);
  while (size) {
    ssize_t n = ::pread(fd, p, size, off_t(at));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    at += uint64_t(n);
    size -= size_t(n);
  }
  return true;
}

/// A frame of \p kind whose payload is \p parts, written at \p at.
bool writeFrame(uint64_t at, uint32_t kind, const iovec *parts, int count) {
  spill::FrameHeader h{};
  h.magic = spill::FrameMagic;
  h.kind = kind;
  h.seq = seq++;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  uint64_t bytes = 0;
  for (int i = 0; i < count; ++i)
    bytes += parts[i].iov_len;
  h.payloadBytes = uint32_t(bytes);
  // The hash of the parts as one payload, streamed.
  XXH3_64bits_reset_withSeed(&state,
                             spill::frameSeed(kind, h.seq, h.payloadBytes));
  for (int i = 0; i < count; ++i)
    XXH3_64bits_update(&state, parts[i].iov_base, parts[i].iov_len);
  h.hash = XXH3_64bits_digest(&state);
  iovec all[8];
  all[0] = {&h, sizeof h};
  std::memcpy(all + 1, parts, sizeof(iovec) * size_t(count));
  return writeAt(at, all, count + 1);
}

/// Appends a frame after everything appended so far.
bool appendFrame(uint32_t kind, const iovec *parts, int count) {
  uint64_t bytes = sizeof(spill::FrameHeader);
  for (int i = 0; i < count; ++i)
    bytes += parts[i].iov_len;
  if (!writeFrame(appendAt, kind, parts, count))
    return false;
  appendAt += bytes;
  return true;
}

iovec text(const char *s, uint32_t &bytes) {
  size_t n = s ? std::strlen(s) : 0;
  bytes = uint32_t(n < MaxStringBytes ? n : MaxStringBytes);
  return {const_cast<char *>(s ? s : ""), bytes};
}

bool writeRunFrame() {
  spill::RunPayload run{};
  run.pid = uint32_t(gRt.pid);
  run.useTsc = gClock.useTsc ? 1 : 0;
  run.tsc0 = gClock.tsc0;
  run.mono0 = gClock.mono0;
  iovec parts[3] = {{&run, sizeof run},
                    text(gRt.program, run.programBytes),
                    text(gClock.reason, run.reasonBytes)};
  return appendFrame(spill::KindRun, parts, 3);
}

bool open() {
  if (fd >= 0)
    return true;
  if (failed)
    return false;
  makeOutputDir();
  std::snprintf(path, sizeof path, "%s/.%s.%d.spans", gRt.flags.out.c_str(),
                gRt.program, gRt.pid);
  fd = openOutputFile(path, 0600, true);
  if (fd < 0) {
    failed = true;
    return false;
  }
  spill::FileHeader h{};
  std::memcpy(h.magic, spill::Magic, sizeof h.magic);
  h.version = spill::Version;
  h.headerBytes = sizeof h;
  h.recordBytes = sizeof(SpanRecord);
  h.chunkRecords = uint32_t(ChunkRecords);
  h.pid = uint32_t(gRt.pid);
  if (gRt.flags.traceKeep == TraceKeep::Last) {
    uint64_t slots = (gRt.flags.traceMaxMb << 20) / SlotBytes;
    ringSlots = slots ? slots : 1;
  }
  h.ringSlots = ringSlots;
  h.slotBytes = SlotBytes;
  iovec part = {&h, sizeof h};
  appendAt = sizeof h + ringSlots * SlotBytes;
  lastSyncNs = monotonicNs();
  if (!writeAt(0, &part, 1) || !writeRunFrame()) {
    ::close(fd);
    fd = -1;
    failed = true;
    return false;
  }
  return true;
}

uint32_t nameHash(const char *name) {
  return uint32_t(XXH3_64bits(name, std::strlen(name))) | 1;
}

/// What the chunk's records need that the file does not say yet.
bool writeWhatIsNew(const SpanChunk *c) {
  for (uint32_t n = gRegistry.size(); functionsWritten < n;) {
    uint32_t id = functionsWritten + 1;
    const FunctionRecord &f = gRegistry.get(id);
    spill::FunctionPayload p{};
    p.id = id;
    p.line = f.line;
    iovec parts[4] = {{&p, sizeof p},
                      text(f.name, p.nameBytes),
                      text(f.mangled, p.mangledBytes),
                      text(f.file, p.fileBytes)};
    if (!appendFrame(spill::KindFunction, parts, 4))
      return false;
    functionsWritten = id;
  }
  for (unsigned n = progressPointCount(); progressWritten < n;) {
    const ProgressSlot &slot = progressSlot(progressWritten);
    spill::ProgressPayload p{};
    p.id = progressWritten + 1;
    p.kind = slot.kind;
    iovec parts[2] = {{&p, sizeof p}, text(slot.name, p.nameBytes)};
    if (!appendFrame(spill::KindProgress, parts, 2))
      return false;
    ++progressWritten;
  }
  char name[sizeof c->owner->name] = {};
  if (c->owner)
    copyThreadName(c->owner, name); // its thread may be renaming itself
  uint32_t hash = nameHash(name);
  WrittenName *slot = nullptr;
  for (unsigned i = 0; i < NameSlots; ++i) {
    WrittenName &w = names[(c->tid + i) % NameSlots];
    if (w.tid == c->tid || w.tid == 0) {
      slot = &w;
      break;
    }
  }
  if (!slot || slot->tid != c->tid || slot->hash != hash) {
    spill::ThreadPayload p{c->tid, 0};
    iovec parts[2] = {{&p, sizeof p}, text(name, p.nameBytes)};
    if (!appendFrame(spill::KindThread, parts, 2))
      return false;
    if (slot)
      *slot = {c->tid, hash};
  }
  spill::ClockPayload clock{nowTicks(), monotonicNs()};
  iovec part = {&clock, sizeof clock};
  return appendFrame(spill::KindClock, &part, 1);
}

/// Reads the chunk frame at \p at into readBuffer; false when it is not a
/// whole, intact chunk frame.
bool readChunkAt(uint64_t at) {
  spill::FrameHeader h;
  spill::ChunkPayload p;
  if (!readAt(at, &h, sizeof h) || h.magic != spill::FrameMagic ||
      h.kind != spill::KindChunk || h.payloadBytes < sizeof p ||
      !readAt(at + sizeof h, &p, sizeof p) || p.count > ChunkRecords ||
      h.payloadBytes != sizeof p + p.count * sizeof(SpanRecord) ||
      !readAt(at + sizeof h + sizeof p, readBuffer.records,
              p.count * sizeof(SpanRecord)))
    return false;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset_withSeed(&state,
                             spill::frameSeed(h.kind, h.seq, h.payloadBytes));
  XXH3_64bits_update(&state, &p, sizeof p);
  XXH3_64bits_update(&state, readBuffer.records, p.count * sizeof(SpanRecord));
  if (XXH3_64bits_digest(&state) != h.hash)
    return false;
  readBuffer.owner = reinterpret_cast<ThreadState *>(uintptr_t(p.owner));
  readBuffer.tid = p.tid;
  readBuffer.count = p.count;
  readBuffer.spilled = 0; // what the file holds, all of it to convert
  return true;
}

void syncNowAndThen() {
  uint64_t now = monotonicNs();
  if (now - lastSyncNs < SyncEveryNs)
    return;
  lastSyncNs = now;
  ::fdatasync(fd);
}

/// True while \p pid runs: a zombie (killed, not yet reaped) does not.
bool processAlive(pid_t pid) {
  if (::kill(pid, 0) != 0)
    return errno != ESRCH;
  char path[64], stat[512];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return true;
  ssize_t n = ::read(fd, stat, sizeof stat - 1);
  ::close(fd);
  if (n <= 0)
    return true;
  stat[n] = '\0';
  // "pid (comm) S ...": the state follows the last ')'.
  const char *close = std::strrchr(stat, ')');
  return !(close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X'));
}

} // namespace

bool spillChunk(const SpanChunk *c, uint32_t first, uint32_t n,
                void (*evicted)(const SpanChunk *)) {
  if (!open())
    return false;
  spill::ChunkPayload p{c->tid, n - first, uint64_t(uintptr_t(c->owner))};
  iovec parts[2] = {{&p, sizeof p},
                    {const_cast<SpanRecord *>(c->records + first),
                     size_t(n - first) * sizeof(SpanRecord)}};
  uint64_t frameBytes =
      sizeof(spill::FrameHeader) + sizeof p + parts[1].iov_len;
  uint64_t cap = gRt.flags.traceMaxMb << 20;
  if (!ringSlots && cap && chunkBytes + frameBytes > cap)
    return false;
  if (!writeWhatIsNew(c))
    return false;
  bool written;
  if (ringSlots) {
    uint64_t at =
        sizeof(spill::FileHeader) + (ringChunks % ringSlots) * SlotBytes;
    if (ringChunks >= ringSlots && readChunkAt(at))
      evicted(&readBuffer);
    written = writeFrame(at, spill::KindChunk, parts, 2);
    if (written)
      ++ringChunks;
  } else {
    written = appendFrame(spill::KindChunk, parts, 2);
    if (written)
      chunkBytes += frameBytes;
  }
  if (written)
    syncNowAndThen();
  return written;
}

void spillConvert(void (*convert)(SpanChunk *)) {
  if (fd < 0)
    return;
  if (ringSlots) {
    // Oldest first: the slot the next chunk would have overwritten.
    uint64_t kept = ringChunks < ringSlots ? ringChunks : ringSlots;
    for (uint64_t i = 0; i < kept; ++i) {
      uint64_t k = ringChunks - kept + i;
      if (readChunkAt(sizeof(spill::FileHeader) + (k % ringSlots) * SlotBytes))
        convert(&readBuffer);
    }
  } else {
    spill::FrameHeader h;
    for (uint64_t at = sizeof(spill::FileHeader);
         at < appendAt && readAt(at, &h, sizeof h) &&
         h.magic == spill::FrameMagic;
         at += sizeof h + h.payloadBytes)
      if (h.kind == spill::KindChunk && readChunkAt(at))
        convert(&readBuffer);
  }
}

void spillRemove() {
  if (fd < 0)
    return;
  ::close(fd);
  ::unlink(path);
  fd = -1;
}

const char *spillLeftBehind() { return fd >= 0 ? path : nullptr; }

void spillAfterFork() {
  // The file is the parent's: the child opens its own, with its pid.
  if (fd >= 0)
    ::close(fd);
  fd = -1;
  failed = false;
  seq = appendAt = chunkBytes = ringChunks = ringSlots = 0;
  functionsWritten = 0;
  progressWritten = 0;
  std::memset(names, 0, sizeof names);
}

void spillReportLeftovers() {
  DIR *dir = ::opendir(gRt.flags.out.c_str());
  if (!dir)
    return;
  char prefix[300];
  int prefixBytes = std::snprintf(prefix, sizeof prefix, ".%s.", gRt.program);
  while (dirent *e = ::readdir(dir)) {
    const char *name = e->d_name;
    size_t len = std::strlen(name);
    if (std::strncmp(name, prefix, size_t(prefixBytes)) != 0 || len < 7 ||
        std::strcmp(name + len - 6, ".spans") != 0)
      continue;
    long pid = std::strtol(name + prefixBytes, nullptr, 10);
    // A live process (this one, or another run beside it) is still writing;
    // one whose trace is there was recovered already.
    if (pid <= 0 || pid == gRt.pid || processAlive(pid_t(pid)))
      continue;
    char trace[4096];
    std::snprintf(trace, sizeof trace, "%s/%s.%ld.trace.json",
                  gRt.flags.out.c_str(), gRt.program, pid);
    if (::access(trace, F_OK) == 0)
      continue;
    char line[4096 + 400];
    int n = std::snprintf(
        line, sizeof line,
        "perfcc: %s/%s: an earlier run (pid %ld) ended before writing its "
        "trace; recover it with: perfctl trace recover %s/%s\n",
        gRt.flags.out.c_str(), name, pid, gRt.flags.out.c_str(), name);
    if (n > 0)
      (void)!::write(2, line,
                     size_t(n) < sizeof line ? size_t(n) : sizeof line);
  }
  ::closedir(dir);
}

} // namespace perfrt

PERFRT_NOINSTR_END
