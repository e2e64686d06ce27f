//===- DescriptorType.h - struct perfcc_desc as an LLVM type --------------===//
//
// The pass emits one `struct perfcc_desc` (perfcc/ABI.h) per instrumented
// function and the runtime reads it as the C struct. This is the one place
// the pass spells the struct's fields; DescriptorLayoutTest compares the
// offsets and size of this type under the host's data layout with the C
// struct's offsetof and sizeof, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_PASSES_DESCRIPTORTYPE_H
#define PERFCC_PASSES_DESCRIPTORTYPE_H

namespace llvm {
class LLVMContext;
class StructType;
} // namespace llvm

namespace perfcc {

/// The fields of struct perfcc_desc, in declaration order.
enum DescField : unsigned {
  DescEnabled, // uint32_t, read by the guard before every probe call
  DescId,      // uint32_t
  DescName,    // const char *
  DescMangled, // const char *
  DescFile,    // const char *
  DescLine,    // uint32_t
  DescFlags,   // uint32_t
  DescFieldCount
};

/// The literal struct type of a descriptor in \p Ctx.
llvm::StructType *descriptorType(llvm::LLVMContext &Ctx);

} // namespace perfcc

#endif // PERFCC_PASSES_DESCRIPTORTYPE_H
