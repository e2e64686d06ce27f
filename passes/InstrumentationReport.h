//===- InstrumentationReport.h - why each function got a probe or not -----===//
//
// Users always ask why a function got no probe. Every decision of the pass is
// recorded here with its reason and goes out two ways: as optimization remarks
// (clang -Rpass=perf-instrument / -Rpass-missed=perf-instrument) and, when
// PERFCC_BUILD_REPORT names a file, as JSON lines appended to that file (one
// object per defined function; many compiler processes may append at once).
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_INSTRUMENTATIONREPORT_H
#define PERFCC_PASSES_INSTRUMENTATIONREPORT_H

#include "FunctionInfo.h"

#include "llvm/IR/Function.h"

#include <string>
#include <vector>

namespace perfcc {

struct Decision {
  FunctionInfo info;
  bool instrumented = false;
  std::string reason;        ///< one phrase: "selected by t.txt:3", ...
  unsigned instructions = 0; ///< IR instructions when decided
  int targetsRule = -1;      ///< deciding rule of the targets file, or -1
};

class InstrumentationReport {
public:
  /// Records the decision for \p F and emits its optimization remark.
  void record(llvm::Function &F, Decision D);

  /// Appends the module's decisions to \p Path as JSON lines. Returns an
  /// error message, or an empty string on success.
  std::string appendTo(const std::string &Path, llvm::StringRef Module,
                       llvm::StringRef Stage) const;

  const std::vector<Decision> &decisions() const { return Decisions; }

private:
  std::vector<Decision> Decisions;
};

} // namespace perfcc

#endif // PERFCC_PASSES_INSTRUMENTATIONREPORT_H
