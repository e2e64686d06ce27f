//===- SpillRecovery.h - a trace and summary from a spill -------*- C++ -*-===//
//
// perfctl trace recover: turns the spill a run left behind (SpillReader.h)
// into `<program>.<pid>.trace.json` and `<program>.<pid>.summary.json`, the
// files the run would have written, with what the spill cannot know said
// so: the metadata's and the summary's `recovered` object (the file read,
// where and why reading stopped, chunks lost in a ring), an instant event
// where the record ends, and no window, speed bumps or GPU activity (those
// lived in the process's memory). Calls are charged to the summary as the
// runtime does: calls, inclusive and exclusive time with p50 and p99 from
// the same histogram, per function and thread.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_TRACE_SPILLRECOVERY_H
#define PERFCC_DRIVER_PERFCTL_TRACE_SPILLRECOVERY_H

#include "trace/SpillReader.h"

#include <cstdint>
#include <string>

namespace perfcc::perfctl {

struct RecoveredFiles {
  std::string trace, summary;
  std::uint64_t calls = 0;   ///< function spans written
  std::uint64_t records = 0; ///< every record read (calls, bumps, counts)
  std::uint64_t unnamed = 0; ///< records whose function or point the
                             ///< spill never named: skipped
  std::uint64_t endNs = 0;   ///< the last record's end, CLOCK_MONOTONIC
};

/// Writes the trace and summary of \p reader's spill (read from
/// \p spillPath) into \p outDir. False, with \p error set to one line, when
/// they cannot be written; files already there are never overwritten.
bool recoverSpill(SpillReader &reader, const std::string &spillPath,
                  const std::string &outDir, RecoveredFiles &files,
                  std::string &error);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_TRACE_SPILLRECOVERY_H
