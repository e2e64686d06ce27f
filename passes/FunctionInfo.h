//===- FunctionInfo.h - the names a function is selected and shown by -----===//
//
// Computes what reaches the runtime's descriptor and what the selection
// language matches: the demangled qualified name without parameters, the
// linkage name, the source file and the line.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_FUNCTIONINFO_H
#define PERFCC_PASSES_FUNCTIONINFO_H

#include "llvm/IR/Function.h"

#include <string>

namespace perfcc {

struct FunctionInfo {
  std::string qualifiedName; ///< "ns::Class::method" (no parameter list)
  std::string mangledName;   ///< "_ZN2ns5Class6methodEv"
  std::string file;          ///< debug-info path, else the module's source
  unsigned line = 0;         ///< debug-info line, 0 without debug info

  /// Computes the names of \p F. Never fails: a name that does not demangle
  /// is used as it is (C functions, `main`, compiler-made functions).
  static FunctionInfo of(const llvm::Function &F);
};

/// "ns::f<int>" for "_ZN2ns1fIiEEvT_"; clone suffixes such as ".resume" are
/// kept as " (.resume)". Exposed for the pass's own use and for lit tests.
std::string qualifiedNameOf(llvm::StringRef Mangled);

} // namespace perfcc

#endif // PERFCC_PASSES_FUNCTIONINFO_H
