//===- FunctionInfo.cpp - names, file and line of a function --------------===//
//
// Names are demangled here, at build time, so the runtime never needs a
// demangler or a symbol table: the descriptor carries everything.
//
//===----------------------------------------------------------------------===//
#include "FunctionInfo.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

namespace perfcc {

std::string qualifiedNameOf(llvm::StringRef Mangled) {
  // Clone suffixes (".resume", ".cold.1", ".llvm.123") are not part of the
  // Itanium grammar; split them off so the base name demangles.
  llvm::StringRef Base = Mangled, Suffix;
  if (Mangled.substr(0, 2) == "_Z") {
    size_t Dot = Mangled.find('.');
    if (Dot != llvm::StringRef::npos) {
      Base = Mangled.take_front(Dot);
      Suffix = Mangled.drop_front(Dot);
    }
  }
  std::string Result;
  // The demangler's nodes point into its input: keep the string alive.
  const std::string Input = Base.str();
  llvm::ItaniumPartialDemangler Demangler;
  if (!Demangler.partialDemangle(Input.c_str())) {
    size_t Size = 0;
    char *Name = Demangler.isFunction()
                     ? Demangler.getFunctionName(nullptr, &Size)
                     : Demangler.finishDemangle(nullptr, &Size);
    if (Name) {
      Result = Name;
      std::free(Name);
    }
  }
  if (Result.empty())
    return Mangled.str();
  if (!Suffix.empty())
    Result += " (" + Suffix.str() + ")";
  return Result;
}

FunctionInfo FunctionInfo::of(const llvm::Function &F) {
  FunctionInfo Info;
  Info.mangledName = F.getName().str();
  Info.qualifiedName = qualifiedNameOf(F.getName());
  if (const llvm::DISubprogram *SP = F.getSubprogram()) {
    llvm::StringRef Dir = SP->getDirectory(), Name = SP->getFilename();
    if (llvm::sys::path::is_absolute(Name) || Dir.empty()) {
      Info.file = Name.str();
    } else {
      llvm::SmallString<256> Full(Dir);
      llvm::sys::path::append(Full, Name);
      Info.file = std::string(Full);
    }
    Info.line = SP->getLine();
  } else {
    Info.file = F.getParent()->getSourceFileName();
  }
  return Info;
}

} // namespace perfcc
