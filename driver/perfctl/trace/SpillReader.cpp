//===- SpillReader.cpp - a spill file read back after a crash -------------===//
#include "trace/SpillReader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace perfcc::perfctl {

namespace {

/// The strings after a payload's fixed part, in order: false when their
/// lengths overrun the payload.
bool takeStrings(
    const std::vector<char> &payload, std::size_t fixed,
    std::initializer_list<std::pair<std::uint32_t, std::string *>> strings) {
  std::size_t at = fixed;
  for (auto [bytes, out] : strings) {
    if (bytes > payload.size() || at > payload.size() - bytes)
      return false;
    out->assign(payload.data() + at, bytes);
    at += bytes;
  }
  return at == payload.size();
}

template <typename T> T fixedPart(const std::vector<char> &payload) {
  T value{};
  std::memcpy(&value, payload.data(), sizeof value);
  return value;
}

const char *kindName(std::uint32_t kind) {
  switch (kind) {
  case spill::KindRun:
    return "run";
  case spill::KindFunction:
    return "function";
  case spill::KindThread:
    return "thread";
  case spill::KindProgress:
    return "progress point";
  case spill::KindClock:
    return "clock";
  case spill::KindChunk:
    return "chunk";
  }
  return "unknown";
}

} // namespace

bool SpillReader::readAt(std::uint64_t at, void *data, std::size_t bytes) {
  if (fseeko(file_.get(), off_t(at), SEEK_SET) != 0)
    return false;
  return std::fread(data, 1, bytes, file_.get()) == bytes;
}

bool SpillReader::readFrame(std::uint64_t at, spill::FrameHeader &header,
                            std::vector<char> &payload, std::string &problem) {
  if (at + sizeof header > index_.fileBytes) {
    problem = at == index_.fileBytes ? "" : "a frame cut short";
    return false;
  }
  if (!readAt(at, &header, sizeof header)) {
    problem = "a frame that could not be read";
    return false;
  }
  if (header.magic != spill::FrameMagic) {
    problem = "no frame where one should begin";
    return false;
  }
  if (header.payloadBytes > spill::MaxPayloadBytes) {
    problem = fmt::format("a frame claiming {} bytes", header.payloadBytes);
    return false;
  }
  if (at + sizeof header + header.payloadBytes > index_.fileBytes) {
    problem = fmt::format("a {} frame cut short", kindName(header.kind));
    return false;
  }
  payload.resize(header.payloadBytes);
  if (!readAt(at + sizeof header, payload.data(), payload.size())) {
    problem = "a frame that could not be read";
    return false;
  }
  if (spill::frameHash(header.kind, header.seq, payload.data(),
                       header.payloadBytes) != header.hash) {
    problem = fmt::format("a {} frame whose hash does not match (torn or "
                          "corrupt)",
                          kindName(header.kind));
    return false;
  }
  return true;
}

bool SpillReader::takeFrame(const spill::FrameHeader &header,
                            const std::vector<char> &payload,
                            std::string &problem) {
  auto tooShort = [&](std::size_t fixed) {
    if (payload.size() >= fixed)
      return false;
    problem = fmt::format("a {} frame too short", kindName(header.kind));
    return true;
  };
  auto badStrings = [&] {
    problem =
        fmt::format("a {} frame whose names overrun it", kindName(header.kind));
    return false;
  };
  switch (header.kind) {
  case spill::KindRun: {
    if (tooShort(sizeof(spill::RunPayload)))
      return false;
    auto run = fixedPart<spill::RunPayload>(payload);
    if (!takeStrings(payload, sizeof run,
                     {{run.programBytes, &index_.program},
                      {run.reasonBytes, &index_.clockReason}}))
      return badStrings();
    index_.pid = run.pid;
    index_.useTsc = run.useTsc != 0;
    index_.clockPairs.insert(index_.clockPairs.begin(), {run.tsc0, run.mono0});
    return true;
  }
  case spill::KindFunction: {
    if (tooShort(sizeof(spill::FunctionPayload)))
      return false;
    auto p = fixedPart<spill::FunctionPayload>(payload);
    SpillFunction f;
    f.line = p.line;
    if (!takeStrings(payload, sizeof p,
                     {{p.nameBytes, &f.name},
                      {p.mangledBytes, &f.mangled},
                      {p.fileBytes, &f.file}}))
      return badStrings();
    index_.functions[p.id] = std::move(f);
    return true;
  }
  case spill::KindThread: {
    if (tooShort(sizeof(spill::ThreadPayload)))
      return false;
    auto p = fixedPart<spill::ThreadPayload>(payload);
    std::string name;
    if (!takeStrings(payload, sizeof p, {{p.nameBytes, &name}}))
      return badStrings();
    index_.threadNames[p.tid] = std::move(name);
    return true;
  }
  case spill::KindProgress: {
    if (tooShort(sizeof(spill::ProgressPayload)))
      return false;
    auto p = fixedPart<spill::ProgressPayload>(payload);
    SpillProgressPoint point;
    point.kind = p.kind;
    if (!takeStrings(payload, sizeof p, {{p.nameBytes, &point.name}}))
      return badStrings();
    index_.progressPoints[p.id] = std::move(point);
    return true;
  }
  case spill::KindClock: {
    if (tooShort(sizeof(spill::ClockPayload)))
      return false;
    auto p = fixedPart<spill::ClockPayload>(payload);
    index_.clockPairs.emplace_back(p.ticks, p.monoNs);
    return true;
  }
  }
  problem = fmt::format("a frame of unknown kind {}", header.kind);
  return false;
}

void SpillReader::takeChunk(std::uint64_t at, const spill::FrameHeader &header,
                            const std::vector<char> &payload) {
  auto p = fixedPart<spill::ChunkPayload>(payload);
  SpillChunkRef chunk;
  chunk.offset = at + sizeof header + sizeof p;
  chunk.seq = header.seq;
  chunk.tid = p.tid;
  chunk.count = p.count;
  index_.chunks.push_back(chunk);
}

void SpillReader::readLinear(std::uint64_t at) {
  spill::FrameHeader header;
  std::vector<char> payload;
  std::string problem;
  for (;;) {
    if (!readFrame(at, header, payload, problem))
      break;
    if (header.kind == spill::KindChunk) {
      if (payload.size() < sizeof(spill::ChunkPayload) ||
          payload.size() !=
              sizeof(spill::ChunkPayload) +
                  std::size_t(fixedPart<spill::ChunkPayload>(payload).count) *
                      sizeof(spill::Record)) {
        problem = "a chunk frame whose count does not match its length";
        break;
      }
      takeChunk(at, header, payload);
    } else if (!takeFrame(header, payload, problem)) {
      break;
    }
    ++index_.frames;
    at += sizeof header + header.payloadBytes;
    index_.goodBytes = at;
  }
  if (!problem.empty()) {
    index_.cut = fmt::format("{} at byte {}; the {} bytes after it were not "
                             "read",
                             problem, at, index_.fileBytes - at);
    index_.cutOffset = at;
  }
}

void SpillReader::readRing(const spill::FileHeader &file) {
  std::uint64_t slotsEnd = sizeof file + file.ringSlots * file.slotBytes;
  // The names, threads and clock pairs follow the slots.
  index_.goodBytes = slotsEnd;
  readLinear(slotsEnd);
  spill::FrameHeader header;
  std::vector<char> payload;
  std::string problem;
  for (std::uint64_t slot = 0; slot < file.ringSlots; ++slot) {
    std::uint64_t at = sizeof file + slot * file.slotBytes;
    if (readFrame(at, header, payload, problem) &&
        header.kind == spill::KindChunk &&
        payload.size() >= sizeof(spill::ChunkPayload) &&
        payload.size() ==
            sizeof(spill::ChunkPayload) +
                std::size_t(fixedPart<spill::ChunkPayload>(payload).count) *
                    sizeof(spill::Record)) {
      takeChunk(at, header, payload);
      ++index_.frames;
    } else if (!problem.empty() || at + sizeof header <= index_.fileBytes) {
      // A slot never written reads as zeros or past the end: not a loss.
      bool empty = header.magic == 0 && header.seq == 0 && header.hash == 0;
      if (!empty)
        ++index_.badSlots;
    }
  }
  std::sort(index_.chunks.begin(), index_.chunks.end(),
            [](const SpillChunkRef &a, const SpillChunkRef &b) {
              return a.seq < b.seq;
            });
}

bool SpillReader::open(const std::string &path, std::string &error) {
  index_ = SpillIndex{};
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) {
    error = std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fileno(file_.get()), &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  index_.fileBytes = std::uint64_t(st.st_size);
  spill::FileHeader file{};
  if (index_.fileBytes < sizeof file || !readAt(0, &file, sizeof file) ||
      std::memcmp(file.magic, spill::Magic, sizeof file.magic) != 0) {
    error = "not a perfcc spill file (no spill header)";
    return false;
  }
  if (file.version != spill::Version) {
    error = fmt::format("a spill of format version {}; this perfctl reads "
                        "version {}",
                        file.version, spill::Version);
    return false;
  }
  if (file.headerBytes != sizeof file ||
      file.recordBytes != sizeof(spill::Record) ||
      (file.ringSlots && file.slotBytes < sizeof(spill::FrameHeader)) ||
      file.ringSlots > index_.fileBytes) {
    error = "a spill header that does not hold together";
    return false;
  }
  index_.ring = file.ringSlots != 0;
  index_.goodBytes = sizeof file;
  if (index_.ring)
    readRing(file);
  else
    readLinear(sizeof file);
  if (index_.program.empty() && index_.clockPairs.empty()) {
    error = "no run frame: nothing in it can be read" +
            (index_.cut.empty() ? std::string() : " (" + index_.cut + ")");
    return false;
  }
  return true;
}

bool SpillReader::readChunk(const SpillChunkRef &chunk,
                            std::vector<spill::Record> &records,
                            std::string &error) {
  records.resize(chunk.count);
  if (!readAt(chunk.offset, records.data(),
              records.size() * sizeof(spill::Record))) {
    error = fmt::format("the chunk at byte {} could not be read again (the "
                        "file changed?)",
                        chunk.offset);
    return false;
  }
  return true;
}

} // namespace perfcc::perfctl
