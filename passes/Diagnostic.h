//===- Diagnostic.h - a plain-text diagnostic from the plugin ---*- C++ -*-===//
//
// LLVM has no generic message diagnostic in every supported major, so the
// plugin defines one. Reported through LLVMContext::diagnose, clang prints it
// like its own ("error: ..." / "warning: ...") and an error fails the build;
// opt prints it and exits.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_DIAGNOSTIC_H
#define PERFCC_PASSES_DIAGNOSTIC_H

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"

#include <string>

namespace perfcc {

class PerfDiagnostic : public llvm::DiagnosticInfo {
public:
  PerfDiagnostic(std::string Message, llvm::DiagnosticSeverity Severity)
      : DiagnosticInfo(kind(), Severity), Message(std::move(Message)) {}

  void print(llvm::DiagnosticPrinter &DP) const override { DP << Message; }

private:
  static int kind() {
    static const int Kind = llvm::getNextAvailablePluginDiagnosticKind();
    return Kind;
  }
  std::string Message;
};

} // namespace perfcc

#endif // PERFCC_PASSES_DIAGNOSTIC_H
