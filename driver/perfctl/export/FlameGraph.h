//===- FlameGraph.h - the interactive SVG flame graph -----------*- C++ -*-===//
//
// perfctl export --format flamegraph: a self-contained SVG that any browser
// opens, drawn from the call tree: one frame per call path, as wide as its
// total (inclusive) wall time, callees stacked above their caller, the
// threads above one root frame ("all"). Frames of one caller are in name
// order (a flame graph's x axis is not time). Hovering a frame shows its
// function, calls, total and self time; clicking zooms to it (its callers
// stay as the full-width base), clicking the root or "Reset zoom" zooms
// out. The script is plain JavaScript inside the file; nothing is fetched.
// Frames narrower than MinFrameWidthPx at full width are left out, and the
// subtitle says how many.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_EXPORT_FLAMEGRAPH_H
#define PERFCC_DRIVER_PERFCTL_EXPORT_FLAMEGRAPH_H

#include "export/CallTree.h"

#include <string>

namespace perfcc::perfctl {

constexpr double FlameGraphWidthPx = 1200;
constexpr double FrameHeightPx = 16;
constexpr double MinFrameWidthPx = 0.1;

/// The SVG of \p tree (built from \p model), titled \p title.
std::string flameGraphSvg(const TraceModel &model, const CallTree &tree,
                          const std::string &title);

/// \p text with &, <, >, " and ' escaped for XML.
std::string xmlEscaped(std::string_view text);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_EXPORT_FLAMEGRAPH_H
