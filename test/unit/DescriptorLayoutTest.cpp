// The descriptor the pass emits is the struct the runtime reads: the LLVM
// type of passes/DescriptorType.cpp, laid out by the host target's data
// layout, has the offsets, size and alignment of struct perfcc_desc.
#include "DescriptorType.h"

#include "perfcc/ABI.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>

// Both moved between LLVM 14 and 19.
#if __has_include("llvm/TargetParser/Host.h")
#include "llvm/TargetParser/Host.h"
#else
#include "llvm/Support/Host.h"
#endif
#if __has_include("llvm/MC/TargetRegistry.h")
#include "llvm/MC/TargetRegistry.h"
#else
#include "llvm/Support/TargetRegistry.h"
#endif

using namespace perfcc;

namespace {

/// The data layout clang uses for the host (the pass runs inside that clang).
llvm::DataLayout hostDataLayout() {
  llvm::InitializeNativeTarget();
  std::string triple = llvm::sys::getDefaultTargetTriple(), error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  EXPECT_NE(target, nullptr) << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", llvm::TargetOptions(), {}));
  return machine->createDataLayout();
}

TEST(DescriptorLayout, LlvmTypeHasTheOffsetsOfTheCStruct) {
  llvm::LLVMContext ctx;
  llvm::StructType *type = descriptorType(ctx);
  ASSERT_EQ(type->getNumElements(), unsigned(DescFieldCount));
  llvm::DataLayout layout = hostDataLayout();
  const llvm::StructLayout *sl = layout.getStructLayout(type);
  struct Expected {
    DescField field;
    size_t offset, size;
    const char *name;
  } fields[] = {
      {DescEnabled, offsetof(perfcc_desc, enabled),
       sizeof(perfcc_desc::enabled), "enabled"},
      {DescId, offsetof(perfcc_desc, id), sizeof(perfcc_desc::id), "id"},
      {DescName, offsetof(perfcc_desc, name), sizeof(perfcc_desc::name),
       "name"},
      {DescMangled, offsetof(perfcc_desc, mangled),
       sizeof(perfcc_desc::mangled), "mangled"},
      {DescFile, offsetof(perfcc_desc, file), sizeof(perfcc_desc::file),
       "file"},
      {DescLine, offsetof(perfcc_desc, line), sizeof(perfcc_desc::line),
       "line"},
      {DescFlags, offsetof(perfcc_desc, flags), sizeof(perfcc_desc::flags),
       "flags"},
  };
  for (const Expected &f : fields) {
    EXPECT_EQ(sl->getElementOffset(f.field), f.offset) << f.name;
    EXPECT_EQ(layout.getTypeAllocSize(type->getElementType(f.field)), f.size)
        << f.name;
  }
  EXPECT_EQ(sl->getSizeInBytes(), sizeof(perfcc_desc));
  EXPECT_EQ(layout.getABITypeAlign(type).value(), alignof(perfcc_desc));
}

TEST(DescriptorLayout, EnabledIsTheFirstWord) {
  // The guard in instrumented code loads `enabled` through the descriptor's
  // own address.
  EXPECT_EQ(offsetof(perfcc_desc, enabled), 0u);
  EXPECT_EQ(unsigned(DescEnabled), 0u);
}

} // namespace
