//===- FoldedStacks.h - the folded-stacks export ----------------*- C++ -*-===//
//
// perfctl export --format folded: one line per call path with self time,
// "frame;frame;...;frame VALUE", the format Brendan Gregg's flamegraph.pl,
// inferno, speedscope and most flame-graph tools read. The first frame is
// the thread ("engine-main (tid 42)"), the value its self time in
// nanoseconds, lines in call-tree order (threads by id, callees by name).
// A ';' inside a name would split the frame, and a line break the line:
// both become a space.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_EXPORT_FOLDEDSTACKS_H
#define PERFCC_DRIVER_PERFCTL_EXPORT_FOLDEDSTACKS_H

#include "export/CallTree.h"

#include <string>

namespace perfcc::perfctl {

/// The folded stacks of \p tree (built from \p model).
std::string foldedStacks(const TraceModel &model, const CallTree &tree);

/// \p name with ';', '\n' and '\r' replaced by spaces.
std::string foldedFrame(std::string name);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_EXPORT_FOLDEDSTACKS_H
