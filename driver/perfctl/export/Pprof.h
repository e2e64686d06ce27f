//===- Pprof.h - the pprof export -------------------------------*- C++ -*-===//
//
// perfctl export --format pprof: the call tree as pprof's profile.proto
// (gzipped, as pprof writes it), for `go tool pprof`, pprof's web UI and
// the tools that read its format. A probe's profile is exact, not sampled:
// each call path is one sample whose values are the calls made on that path
// and their self time (wall, in nanoseconds; the default), so pprof's flat
// column is a function's self time and its cum column the inclusive time,
// recursion counted once. For `calls` (-sample_index=calls) flat is exact
// and cum counts the calls beneath as well, as pprof sums any value. Each
// sample carries a `thread` label ("name (tid N)"), so -tagfocus picks a
// thread. Functions carry their demangled name, file and line; one mapping,
// the program, marked as already symbolized.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_EXPORT_PPROF_H
#define PERFCC_DRIVER_PERFCTL_EXPORT_PPROF_H

#include "export/CallTree.h"

#include <string>

namespace perfcc::perfctl {

/// The gzipped profile.proto of \p tree (built from \p model); \p comment is
/// kept in the profile's comments ("perfctl 0.1 from app.1.trace.json").
std::string pprofProfile(const TraceModel &model, const CallTree &tree,
                         const std::string &comment);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_EXPORT_PPROF_H
