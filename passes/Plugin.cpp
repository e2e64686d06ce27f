//===- Plugin.cpp - registration of libperfpass.so ------------------------===//
//
// The one place the plugin hooks into the new pass manager:
//   * `-passes=perf-instrument` for opt (and `perf-consume-attrs`);
//   * clang's -fpass-plugin: the attribute consumer and, with
//     PERFCC_BUILD_STAGE=early, the pass at the start of the pipeline (before
//     inlining); by default the pass at the end of the optimizer (after
//     inlining, like -finstrument-functions-after-inlining).
// Each path has its own lit test in test/lit/pass/.
//
//===----------------------------------------------------------------------===//
#include "PerfInstrument.h"

#include "Diagnostic.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace perfcc;

namespace {

/// Fails the compilation with the settings error, once per module, through
/// the context's diagnostics so clang reports it like any other error.
class SettingsErrorPass : public PassInfoMixin<SettingsErrorPass> {
public:
  explicit SettingsErrorPass(std::string Error) : Error(std::move(Error)) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    // The selection parser's message is already "FILE:LINE:COL: error: ...";
    // print it as it is, then fail the build.
    errs() << Error << "\n";
    M.getContext().diagnose(PerfDiagnostic(
        "perfcc: invalid build settings (see the line above)", DS_Error));
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }

private:
  std::string Error;
};

/// Settings are read once per compiler process.
const std::optional<PassOptions> &settings(std::string &Error) {
  static std::string StoredError;
  static const std::optional<PassOptions> Options =
      PassOptions::fromEnvironment(StoredError);
  Error = StoredError;
  return Options;
}

void addInstrumentPass(ModulePassManager &MPM) {
  std::string Error;
  const std::optional<PassOptions> &Options = settings(Error);
  if (Options)
    MPM.addPass(PerfInstrumentPass(*Options));
  else
    MPM.addPass(SettingsErrorPass(Error));
}

/// Whether perfcc said it gave clang -finstrument-functions-after-inlining.
bool instrumentAttrsGiven() {
  std::string Error;
  const std::optional<PassOptions> &Options = settings(Error);
  return Options && Options->instrumentAttrsGiven;
}

Stage configuredStage() {
  std::string Error;
  const std::optional<PassOptions> &Options = settings(Error);
  return Options ? Options->stage : Stage::Late;
}

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "perf-instrument") {
          addInstrumentPass(MPM);
          return true;
        }
        if (Name == "perf-consume-attrs") {
          MPM.addPass(ConsumeInstrumentAttrsPass(instrumentAttrsGiven()));
          return true;
        }
        return false;
      });

  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ConsumeInstrumentAttrsPass(instrumentAttrsGiven()));
        if (configuredStage() == Stage::Early)
          addInstrumentPass(MPM);
      });

  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        // Invalid settings make configuredStage() Late, so their error pass
        // is added exactly once: here.
        if (configuredStage() == Stage::Late)
          addInstrumentPass(MPM);
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "perf-instrument", PERFCC_VERSION_STRING,
          registerCallbacks};
}
