//===- PerfInstrument.h - the perf-instrument module pass -------*- C++ -*-===//
//
// Inserts entry and exit probes into the selected functions of a module and
// emits one descriptor per instrumented function (see perfcc/ABI.h).
//
// Usage: opt -load-pass-plugin=libperfpass.so -passes=perf-instrument in.ll
//        clang++ -fpass-plugin=libperfpass.so ...   (or through perfcc)
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_PERFINSTRUMENT_H
#define PERFCC_PASSES_PERFINSTRUMENT_H

#include "PassOptions.h"

#include "llvm/IR/PassManager.h"

namespace perfcc {

class PerfInstrumentPass : public llvm::PassInfoMixin<PerfInstrumentPass> {
public:
  explicit PerfInstrumentPass(PassOptions Options)
      : Options(std::move(Options)) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);

  /// Required so the pass also runs at -O0, where clang marks every function
  /// optnone and optional passes are skipped.
  static bool isRequired() { return true; }

private:
  PassOptions Options;
};

/// Consumes the attributes clang's -finstrument-functions-after-inlining puts
/// on functions (so LLVM's own EntryExitInstrumenter inserts nothing) and
/// marks every function that lacks them — those the source declared
/// no_instrument_function — with PerfNeverAttr: when the flag is known to
/// have been given (\p AttrsGiven, PERFCC_BUILD_INSTRUMENT_ATTRS=1, which
/// perfcc sets), else when the module carries the attributes at all. Runs at
/// the start of the pipeline, before any other pass can read them.
class ConsumeInstrumentAttrsPass
    : public llvm::PassInfoMixin<ConsumeInstrumentAttrsPass> {
public:
  explicit ConsumeInstrumentAttrsPass(bool AttrsGiven = false)
      : AttrsGiven(AttrsGiven) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }

private:
  bool AttrsGiven;
};

/// Function attribute meaning "never instrument" (from no_instrument_function).
constexpr const char *PerfNeverAttr = "perfcc-never";

} // namespace perfcc

#endif // PERFCC_PASSES_PERFINSTRUMENT_H
