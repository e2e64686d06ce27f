//===- Compat.h - every LLVM-version switch of the plugin -------*- C++ -*-===//
//
// The plugin builds against LLVM 14 (Debian 12's default) and newer majors
// (19 is tested in CI). Every difference between them is absorbed here, so the
// rest of the pass reads as plain, current LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_COMPAT_H
#define PERFCC_PASSES_COMPAT_H

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"

// Headers that moved between the supported majors.
#if LLVM_VERSION_MAJOR >= 17
#include "llvm/TargetParser/Triple.h"
#else
#include "llvm/ADT/Triple.h"
#endif
#if LLVM_VERSION_MAJOR >= 17
#include "llvm/IR/EHPersonalities.h"
#else
#include "llvm/Analysis/EHPersonalities.h"
#endif

namespace perfcc::compat {

/// The generic data pointer type: `i8*` under LLVM 14's typed pointers,
/// `ptr` from LLVM 15 on.
inline llvm::PointerType *ptrTy(llvm::LLVMContext &Ctx) {
#if LLVM_VERSION_MAJOR >= 15
  return llvm::PointerType::getUnqual(Ctx);
#else
  return llvm::Type::getInt8PtrTy(Ctx);
#endif
}

/// Pointer to i32, for loading the descriptor's `enabled` word.
inline llvm::PointerType *i32PtrTy(llvm::LLVMContext &Ctx) {
#if LLVM_VERSION_MAJOR >= 15
  return llvm::PointerType::getUnqual(Ctx);
#else
  return llvm::Type::getInt32PtrTy(Ctx);
#endif
}

/// StringRef::startswith was renamed starts_with (and the old name
/// deprecated) after LLVM 14.
inline bool startsWith(llvm::StringRef S, llvm::StringRef Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

} // namespace perfcc::compat

#endif // PERFCC_PASSES_COMPAT_H
