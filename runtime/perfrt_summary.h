//===- perfrt_summary.h - the per-function summary file -------------------===//
//
// `<program>.<pid>.summary.json`: per function, calls and inclusive and
// exclusive time (total, mean, p50, p99, max) over all threads and per
// thread; per thread, its name and calls; and every drop counted. Written in
// both trace and summary modes.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SUMMARY_H
#define PERFRT_SUMMARY_H

namespace perfrt {

/// Writes the summary; fills \p path. False if the file could not be
/// written.
bool summaryWrite(char *path, unsigned pathSize, const char *traceFile);

} // namespace perfrt

#endif // PERFRT_SUMMARY_H
