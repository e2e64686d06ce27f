//===- PassOptions.h - what the perf-instrument pass is told ----*- C++ -*-===//
//
// The real configuration of the pass is this plain struct. It is filled from
// the environment (PERFCC_BUILD_*), because `-mllvm` options do not reach a
// plugin loaded only through `-fpass-plugin` (llvm/llvm-project#56137); perfcc
// turns its --perf-* flags into the same variables.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_PASSOPTIONS_H
#define PERFCC_PASSES_PASSOPTIONS_H

#include "perfcc/Selection.h"

#include <memory>
#include <optional>
#include <string>

namespace perfcc {

/// Where in the pipeline probes go in.
enum class Stage {
  Early, ///< before inlining: every source function keeps its probes
  Late,  ///< after inlining: inlined bodies carry none (cheaper)
};

/// Default minimum size, in IR instructions, of a function that no targets
/// file names. Chosen near XRay's 200 machine instructions: after inlining an
/// IR instruction is roughly one to two machine instructions.
constexpr unsigned DefaultThreshold = 100;

struct PassOptions {
  Stage stage = Stage::Late;
  unsigned threshold = DefaultThreshold;
  /// Parsed targets file; null when none was given.
  std::shared_ptr<const Selection> targets;
  /// Where to append the JSON-lines report; empty for none.
  std::string reportPath;
  /// Clang was given -finstrument-functions-after-inlining (perfcc always
  /// gives it), so a function it left unmarked is no_instrument_function,
  /// even in a module where no function is marked.
  bool instrumentAttrsGiven = false;

  /// Reads PERFCC_BUILD_{TARGETS,THRESHOLD,STAGE,REPORT,INSTRUMENT_ATTRS}.
  /// Returns nullopt and
  /// sets \p error to one line naming the variable, its value and the problem
  /// (or the targets file's own FILE:LINE:COL diagnostic).
  static std::optional<PassOptions> fromEnvironment(std::string &error);
};

} // namespace perfcc

#endif // PERFCC_PASSES_PASSOPTIONS_H
