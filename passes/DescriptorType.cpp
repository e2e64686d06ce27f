//===- DescriptorType.cpp - struct perfcc_desc as an LLVM type ------------===//
#include "DescriptorType.h"

#include "Compat.h"

#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace perfcc {

StructType *descriptorType(LLVMContext &Ctx) {
  Type *Int32 = Type::getInt32Ty(Ctx);
  Type *Ptr = compat::ptrTy(Ctx);
  Type *Fields[DescFieldCount] = {};
  Fields[DescEnabled] = Int32;
  Fields[DescId] = Int32;
  Fields[DescName] = Ptr;
  Fields[DescMangled] = Ptr;
  Fields[DescFile] = Ptr;
  Fields[DescLine] = Int32;
  Fields[DescFlags] = Int32;
  return StructType::get(Ctx, ArrayRef<Type *>(Fields));
}

} // namespace perfcc
