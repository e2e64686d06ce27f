//===- InstrumentationReport.cpp - remarks and the JSON-lines report ------===//
#include "InstrumentationReport.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace perfcc {

static constexpr const char *PassName = "perf-instrument";

void InstrumentationReport::record(llvm::Function &F, Decision D) {
  llvm::OptimizationRemarkEmitter ORE(&F);
  if (D.instrumented) {
    ORE.emit([&] {
      return llvm::OptimizationRemark(PassName, "Instrumented", &F)
             << "instrumented " << D.info.qualifiedName << ": " << D.reason;
    });
  } else {
    ORE.emit([&] {
      return llvm::OptimizationRemarkMissed(PassName, "Skipped", &F)
             << "not instrumented " << D.info.qualifiedName << ": " << D.reason;
    });
  }
  Decisions.push_back(std::move(D));
}

std::string InstrumentationReport::appendTo(const std::string &Path,
                                            llvm::StringRef Module,
                                            llvm::StringRef Stage) const {
  // Build the whole text first and write it once with O_APPEND, so lines
  // from compiler processes running in parallel never interleave.
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  for (const Decision &D : Decisions) {
    llvm::json::Object Line{
        {"module", Module.str()},
        {"function", D.info.qualifiedName},
        {"mangled", D.info.mangledName},
        {"file", D.info.file},
        {"line", static_cast<int64_t>(D.info.line)},
        {"instructions", static_cast<int64_t>(D.instructions)},
        {"stage", Stage.str()},
        {"instrumented", D.instrumented},
        {"reason", D.reason},
    };
    if (D.targetsRule >= 0)
      Line["targets_rule"] = static_cast<int64_t>(D.targetsRule);
    OS << llvm::json::Value(std::move(Line)) << '\n';
  }
  OS.flush();

  std::error_code EC;
  llvm::raw_fd_ostream File(Path, EC, llvm::sys::fs::OF_Append);
  if (EC)
    return "cannot open report file '" + Path + "': " + EC.message();
  File << Text;
  File.close();
  if (File.has_error())
    return "cannot write report file '" + Path + "': " + File.error().message();
  return "";
}

} // namespace perfcc
