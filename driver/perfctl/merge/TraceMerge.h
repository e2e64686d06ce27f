//===- TraceMerge.h - several processes' traces as one ----------*- C++ -*-===//
//
// perfctl merge's trace half: the traces of several processes (a program
// and the children it forked, a server and its workers, the ranks of a
// multi-GPU job) written as one trace, one process track each, on the clock
// they share (every perfcc trace is in CLOCK_MONOTONIC nanoseconds, so
// processes of one machine line up as they ran). Events are copied whole,
// read and written one at a time, so a trace of any size merges in little
// memory; times keep their exact nanoseconds.
//
// What would collide is renumbered: a GPU's track (its pid is the device
// ordinal in each process's trace) becomes one per process and device,
// named "GPU 0 (pid 1234)"; flow ids, CUPTI correlation ids and External ids
// are offset past the previous traces', so every launch still joins its own
// GPU work. The metadata sums the drop counts and keeps each trace's own
// metadata in `merged`, with its file. Two traces of one process, or traces
// on different clocks, are refused: they cannot share a timeline.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_MERGE_TRACEMERGE_H
#define PERFCC_DRIVER_PERFCTL_MERGE_TRACEMERGE_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace perfcc::perfctl {

/// One merged trace, as perfctl merge reports it.
struct MergedTrace {
  std::string file;
  std::int64_t pid = 0;
  std::string program;
  std::uint64_t events = 0;
  std::uint64_t calls = 0; ///< cpu_op events: the probed calls
};

/// Writes the traces \p files, in order, as one trace to \p out; \p version
/// is perfctl's. False with \p error ("FILE: problem") when one cannot be
/// read or cannot join the others; \p out then holds a partial file, for the
/// caller to remove.
bool mergeTraces(const std::vector<std::string> &files, std::FILE *out,
                 const std::string &version, std::vector<MergedTrace> &merged,
                 std::string &error);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_MERGE_TRACEMERGE_H
