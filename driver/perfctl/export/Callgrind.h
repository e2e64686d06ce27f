//===- Callgrind.h - the callgrind export -----------------------*- C++ -*-===//
//
// perfctl export --format callgrind: the call graph in the format
// valgrind's callgrind writes, for KCachegrind, QCachegrind and
// callgrind_annotate. One event, `ns` (wall time in nanoseconds); per
// function (fl= its source file, fn= its name) its self time at the line
// the trace gives for it, and per callee a call record: calls=COUNT and the
// callee's inclusive time under this caller, at the same line (a probe
// knows the function, not the call site). Every thread is summed into one
// part; totals: is the sum of every self time, which callgrind_annotate
// and KCachegrind take as 100%. Names are compressed ("(3) name" once,
// "(3)" after), as callgrind writes them.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_EXPORT_CALLGRIND_H
#define PERFCC_DRIVER_PERFCTL_EXPORT_CALLGRIND_H

#include "export/CallTree.h"

#include <string>

namespace perfcc::perfctl {

/// The callgrind file of \p tree (built from \p model); \p creator names
/// the writer ("perfctl 0.1").
std::string callgrindProfile(const TraceModel &model, const CallTree &tree,
                             const std::string &creator);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_EXPORT_CALLGRIND_H
