//===- SpillReader.h - a spill file read back after a crash -----*- C++ -*-===//
//
// Reads `.<program>.<pid>.spans` (perfcc/SpillFormat.h), the file a traced
// run leaves when it ends before writing its trace. Every whole frame whose
// hash holds is kept; reading stops at the first torn or corrupt one (what a
// kill -9 in the middle of a write leaves) and says where and why: the cut.
// In a ring (PERFCC_TRACE_KEEP=last) each slot stands alone, so a bad slot
// is skipped and counted and the rest are kept. The chunks' records are read
// on demand, one chunk at a time, so a spill of gigabytes needs memory for
// its names and one chunk only.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_TRACE_SPILLREADER_H
#define PERFCC_DRIVER_PERFCTL_TRACE_SPILLREADER_H

#include "perfcc/SpillFormat.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfcc::perfctl {

struct SpillFunction {
  std::string name, mangled, file;
  std::uint32_t line = 0;
};

struct SpillProgressPoint {
  std::string name;
  std::uint32_t kind = 0;
};

/// Where a chunk's records lie in the file.
struct SpillChunkRef {
  std::uint64_t offset = 0; ///< of the records
  std::uint64_t seq = 0;
  std::uint32_t tid = 0, count = 0;
};

struct SpillIndex {
  std::string program;
  std::uint32_t pid = 0;
  bool useTsc = false;
  std::string clockReason;
  /// (ticks, CLOCK_MONOTONIC ns) pairs, the start-up pair first.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> clockPairs;
  std::map<std::uint32_t, SpillFunction> functions;
  std::map<std::uint32_t, std::string> threadNames; ///< the latest name
  std::map<std::uint32_t, SpillProgressPoint> progressPoints;
  std::vector<SpillChunkRef> chunks; ///< oldest first
  bool ring = false;
  std::uint64_t fileBytes = 0;
  /// Bytes in whole, intact frames (the header included).
  std::uint64_t goodBytes = 0;
  std::uint64_t frames = 0;
  /// Empty when the file ends cleanly after its last frame; else why and
  /// where reading stopped ("a torn frame at byte 123: ...").
  std::string cut;
  std::uint64_t cutOffset = 0;
  std::uint64_t badSlots = 0; ///< ring slots that held no intact chunk
};

/// One spill file, open: its index, and its chunks' records on demand.
class SpillReader {
public:
  /// Opens \p path and reads its index: everything but the records. False,
  /// with \p error set to one line, when the file cannot be read, is not a
  /// spill, or holds nothing usable (no run frame).
  bool open(const std::string &path, std::string &error);

  const SpillIndex &index() const { return index_; }

  /// The records of \p chunk into \p records. False, with \p error set,
  /// when they cannot be read again as they were indexed (the file changed).
  bool readChunk(const SpillChunkRef &chunk,
                 std::vector<spill::Record> &records, std::string &error);

private:
  struct Closer {
    void operator()(std::FILE *f) const { std::fclose(f); }
  };
  bool readAt(std::uint64_t at, void *data, std::size_t bytes);
  /// The frame at \p at if it is whole and intact: its header, and its
  /// payload in \p payload. Else why not, in \p problem.
  bool readFrame(std::uint64_t at, spill::FrameHeader &header,
                 std::vector<char> &payload, std::string &problem);
  /// Takes a non-chunk frame into the index.
  bool takeFrame(const spill::FrameHeader &header,
                 const std::vector<char> &payload, std::string &problem);
  void takeChunk(std::uint64_t at, const spill::FrameHeader &header,
                 const std::vector<char> &payload);
  void readLinear(std::uint64_t from);
  void readRing(const spill::FileHeader &file);

  std::unique_ptr<std::FILE, Closer> file_;
  SpillIndex index_;
};

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_TRACE_SPILLREADER_H
