//===- PerfInstrument.cpp - insert perfcc probes into selected functions --===//
//
// For every selected function the pass
//   * emits a descriptor (perfcc/ABI.h) in section perfcc_desc,
//   * calls __perfcc_enter(desc) on entry, guarded by `desc->enabled`,
//   * calls __perfcc_exit(desc) before every return and before a musttail
//     call (nothing may stand between a musttail call and its ret),
//   * calls __perfcc_unwind(desc) when an exception leaves the function: calls
//     that may throw become invokes of a cleanup landing pad, and every
//     `resume` gets the probe (clang's -finstrument-functions emits none),
//   * calls __perfcc_resync(desc) after a returns_twice call (setjmp), where
//     frames above this one may have been abandoned by longjmp,
// and adds one constructor per DSO that registers the section's descriptors
// with the runtime.
//
//===----------------------------------------------------------------------===//
#include "PerfInstrument.h"

#include "Compat.h"
#include "DescriptorType.h"
#include "FunctionInfo.h"
#include "InstrumentationReport.h"
#include "perfcc/ABI.h"

#include "Diagnostic.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <optional>

using namespace llvm;

namespace perfcc {
namespace {

/// A module of the perfcc runtime carries a global in PERFCC_RUNTIME_SECTION.
bool isRuntimeModule(const Module &M) {
  for (const GlobalVariable &G : M.globals())
    if (G.hasSection() && G.getSection() == PERFCC_RUNTIME_SECTION)
      return true;
  return false;
}

/// Runs the pass over one module.
class ModuleInstrumenter {
public:
  ModuleInstrumenter(Module &M, const PassOptions &Opts)
      : M(M), Ctx(M.getContext()), Opts(Opts), Int32(Type::getInt32Ty(Ctx)),
        Ptr(compat::ptrTy(Ctx)) {}

  bool run();

private:
  std::optional<std::string> neverInstrumentReason(const Function &F) const;
  Decision decide(Function &F) const;
  GlobalVariable *createDescriptor(Function &F, const FunctionInfo &Info);
  Constant *createString(StringRef S, const Twine &Name);
  void instrument(Function &F, GlobalVariable *Desc);
  void addUnwindCleanup(Function &F);
  void emitGuardedCall(Instruction *Before, FunctionCallee Probe,
                       GlobalVariable *Desc, const DebugLoc &Loc);
  void emitRegistrationConstructor();
  void declareProbes();

  Module &M;
  LLVMContext &Ctx;
  const PassOptions &Opts;
  Type *Int32;
  PointerType *Ptr;
  StructType *DescTy = descriptorType(Ctx);
  FunctionCallee Enter, Exit, Unwind, Resync;
  InstrumentationReport Report;
  bool RuntimeModule = isRuntimeModule(M);
};

bool isDeviceTriple(const Triple &T) {
  return T.isNVPTX() || T.isAMDGPU() || T.isSPIR() ||
         T.getArch() == Triple::spirv32 || T.getArch() == Triple::spirv64;
}

bool hasLoop(const Function &F) {
  SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 4> Edges;
  FindFunctionBackedges(F, Edges);
  return !Edges.empty();
}

std::string ruleLocation(const Selection &S, int Rule) {
  const perfcc::Rule &R = S.rules()[Rule];
  return S.sourceName() + ":" + std::to_string(R.line);
}

// Hard exclusions: no targets file can override these. One reason a line,
// each with a lit test in test/lit/pass/.
std::optional<std::string>
ModuleInstrumenter::neverInstrumentReason(const Function &F) const {
  if (F.hasAvailableExternallyLinkage())
    return std::string("available_externally: the body is a copy of a "
                       "definition in another module");
  if (F.hasFnAttribute(Attribute::Naked))
    return std::string("naked: the function has no prologue to probe");
  if (F.hasFnAttribute(PerfNeverAttr))
    return std::string("marked no_instrument_function");
  if (F.getFnAttribute("function-instrument").getValueAsString() ==
      "xray-never")
    return std::string("marked xray_never_instrument");
  // A probe in the runtime would re-enter it from its own hot path.
  if (RuntimeModule || compat::startsWith(F.getName(), "__perfcc_") ||
      compat::startsWith(F.getName(), "perfcc."))
    return std::string("part of the perfcc runtime");
  // Before CoroSplit a coroutine's returns are not its real exits; the split
  // ramp and resume functions are instrumented in the late stage.
  if (F.isPresplitCoroutine())
    return std::string("C++20 coroutine before splitting (use the late stage "
                       "to instrument its ramp and resume parts)");
  if (F.hasPersonalityFn() &&
      isFuncletEHPersonality(classifyEHPersonality(F.getPersonalityFn())))
    return std::string("funclet-based (Windows) exception handling is not "
                       "supported");
  return std::nullopt;
}

Decision ModuleInstrumenter::decide(Function &F) const {
  Decision D;
  D.info = FunctionInfo::of(F);
  D.instructions = F.getInstructionCount();

  if (std::optional<std::string> Reason = neverInstrumentReason(F)) {
    D.reason = *Reason;
    return D;
  }
  if (F.getFnAttribute("function-instrument").getValueAsString() ==
      "xray-always") {
    D.instrumented = true;
    D.reason = "marked xray_always_instrument";
    return D;
  }

  Verdict V = Verdict::NoMatch;
  if (Opts.targets) {
    V = Opts.targets->match(
        {D.info.qualifiedName, D.info.mangledName, D.info.file}, D.targetsRule);
    if (V == Verdict::Include) {
      D.instrumented = true;
      D.reason = "selected by " + ruleLocation(*Opts.targets, D.targetsRule);
      return D;
    }
    if (V == Verdict::Exclude) {
      D.reason = "excluded by " + ruleLocation(*Opts.targets, D.targetsRule);
      return D;
    }
    // perfcc's own syntax selects only what it names; a Score-P filter
    // includes everything it does not exclude, subject to the threshold.
    if (!Opts.targets->isScoreP()) {
      D.reason = "not named by the targets file";
      return D;
    }
  }

  // XRay's rule: big enough to be worth a probe, or containing a loop,
  // which can run for long whatever the body's size.
  if (D.instructions >= Opts.threshold) {
    D.instrumented = true;
    D.reason = std::to_string(D.instructions) +
               " IR instructions >= threshold " +
               std::to_string(Opts.threshold);
    return D;
  }
  if (hasLoop(F)) {
    D.instrumented = true;
    D.reason = "contains a loop";
    return D;
  }
  D.reason = std::to_string(D.instructions) + " IR instructions < threshold " +
             std::to_string(Opts.threshold) + " and no loop";
  return D;
}

Constant *ModuleInstrumenter::createString(StringRef S, const Twine &Name) {
  Constant *Data = ConstantDataArray::getString(Ctx, S);
  auto *GV = new GlobalVariable(M, Data->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, Data, Name);
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  return ConstantExpr::getPointerCast(GV, Ptr);
}

GlobalVariable *ModuleInstrumenter::createDescriptor(Function &F,
                                                     const FunctionInfo &Info) {
  std::string Base = (PERFCC_DESC_PREFIX + F.getName()).str();
  uint32_t Flags = Opts.stage == Stage::Early ? PERFCC_DESC_EARLY : 0;
  Constant *Fields[DescFieldCount] = {};
  Fields[DescEnabled] = ConstantInt::get(Int32, 0);
  Fields[DescId] = ConstantInt::get(Int32, 0);
  Fields[DescName] = createString(Info.qualifiedName, Base + ".name");
  Fields[DescMangled] = createString(Info.mangledName, Base + ".mangled");
  Fields[DescFile] = createString(Info.file, Base + ".file");
  Fields[DescLine] = ConstantInt::get(Int32, Info.line);
  Fields[DescFlags] = ConstantInt::get(Int32, Flags);
  Constant *Init = ConstantStruct::get(DescTy, ArrayRef<Constant *>(Fields));
  // Writable: the runtime stores `enabled` and `id` at registration.
  auto *Desc = new GlobalVariable(M, DescTy, /*isConstant=*/false,
                                  GlobalValue::PrivateLinkage, Init, Base);
  Desc->setSection(PERFCC_DESC_SECTION);
  Desc->setAlignment(Align(8));
  // An inline or template function is emitted in every module that uses it
  // and the linker keeps one copy; in the function's comdat, its descriptor
  // is kept or dropped with it, so the runtime sees each function once.
  if (Comdat *C = F.getComdat())
    Desc->setComdat(C);
  return Desc;
}

void ModuleInstrumenter::emitGuardedCall(Instruction *Before,
                                         FunctionCallee Probe,
                                         GlobalVariable *Desc,
                                         const DebugLoc &Loc) {
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(Loc);
  // `enabled` is the descriptor's first word: a disabled probe costs this
  // load and the branch.
  LoadInst *Enabled = B.CreateLoad(
      Int32, ConstantExpr::getPointerCast(Desc, compat::i32PtrTy(Ctx)),
      "perfcc.enabled");
  Enabled->setAlignment(Align(8));
  Value *On = B.CreateICmpNE(Enabled, ConstantInt::get(Int32, 0));
  Instruction *Then = SplitBlockAndInsertIfThen(On, Before, false);
  IRBuilder<> TB(Then);
  TB.SetCurrentDebugLocation(Loc);
  TB.CreateCall(Probe, {ConstantExpr::getPointerCast(Desc, Ptr)});
}

// Gives every call that may throw an unwind edge to one cleanup block that
// ends in `resume`; instrument() then puts the unwind probe before every
// resume, so an exception leaving the function always closes its span.
void ModuleInstrumenter::addUnwindCleanup(Function &F) {
  SmallVector<CallInst *, 16> MayThrow;
  for (Instruction &I : instructions(F)) {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI || CI->doesNotThrow() || CI->isInlineAsm() ||
        isa<IntrinsicInst>(CI) || CI->isMustTailCall() ||
        CI->hasFnAttr(Attribute::ReturnsTwice))
      continue;
    MayThrow.push_back(CI);
  }
  if (MayThrow.empty())
    return;

  if (!F.hasPersonalityFn()) {
    // The C personality only runs cleanups, which is all this block needs;
    // it lives in libgcc, which every C and C++ program links.
    FunctionCallee Personality = M.getOrInsertFunction(
        "__gcc_personality_v0", FunctionType::get(Int32, true));
    F.setPersonalityFn(cast<Constant>(Personality.getCallee()));
  }

  BasicBlock *Cleanup = BasicBlock::Create(Ctx, "perfcc.unwind", &F);
  IRBuilder<> B(Cleanup);
  if (DISubprogram *SP = F.getSubprogram())
    B.SetCurrentDebugLocation(DILocation::get(Ctx, 0, 0, SP));
  LandingPadInst *Pad =
      B.CreateLandingPad(StructType::get(Ctx, {Ptr, Int32}), 0);
  Pad->setCleanup(true);
  B.CreateResume(Pad);
  for (CallInst *CI : MayThrow)
    changeToInvokeAndSplitBasicBlock(CI, Cleanup);
}

void ModuleInstrumenter::instrument(Function &F, GlobalVariable *Desc) {
  // A nounwind function terminates the program if an exception reaches it,
  // so no exception can leave it and it needs no unwind edge.
  if (!F.doesNotThrow())
    addUnwindCleanup(F);

  DebugLoc Loc;
  if (DISubprogram *SP = F.getSubprogram())
    Loc = DILocation::get(Ctx, SP->getLine(), 0, SP);

  // Collect first: emitting probes splits blocks.
  SmallVector<Instruction *, 8> Exits, Resumes, AfterSetjmp;
  for (BasicBlock &BB : F) {
    Instruction *Term = BB.getTerminator();
    if (isa<ReturnInst>(Term)) {
      CallInst *MustTail = BB.getTerminatingMustTailCall();
      Exits.push_back(MustTail ? static_cast<Instruction *>(MustTail) : Term);
    } else if (isa<ResumeInst>(Term)) {
      Resumes.push_back(Term);
    }
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->hasFnAttr(Attribute::ReturnsTwice) && !CB->isTerminator())
          AfterSetjmp.push_back(CB->getNextNode());
  }

  // Entry: after the static allocas, which must stay in the entry block.
  BasicBlock::iterator It = F.getEntryBlock().getFirstInsertionPt();
  while (isa<AllocaInst>(*It))
    ++It;
  emitGuardedCall(&*It, Enter, Desc, Loc);

  for (Instruction *I : Exits)
    emitGuardedCall(I, Exit, Desc, Loc);
  for (Instruction *I : Resumes)
    emitGuardedCall(I, Unwind, Desc, Loc);
  for (Instruction *I : AfterSetjmp)
    emitGuardedCall(I, Resync, Desc, Loc);
}

void ModuleInstrumenter::emitRegistrationConstructor() {
  Type *Void = Type::getVoidTy(Ctx);
  // The linker defines __start_/__stop_ for each output file; hidden, so a
  // DSO's constructor sees its own section, not the executable's.
  auto Bound = [&](const char *Name) {
    GlobalVariable *GV = M.getGlobalVariable(Name);
    if (!GV)
      GV = new GlobalVariable(M, DescTy, false, GlobalValue::ExternalLinkage,
                              nullptr, Name);
    GV->setVisibility(GlobalValue::HiddenVisibility);
    return ConstantExpr::getPointerCast(GV, Ptr);
  };
  FunctionCallee Register = M.getOrInsertFunction(
      PERFCC_REGISTER, FunctionType::get(Void, {Int32, Ptr, Ptr}, false));

  Function *Ctor =
      Function::Create(FunctionType::get(Void, false),
                       GlobalValue::LinkOnceODRLinkage, PERFCC_MODULE_CTOR, M);
  Ctor->setVisibility(GlobalValue::HiddenVisibility);
  Ctor->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", Ctor));
  B.CreateCall(Register, {ConstantInt::get(Int32, PERFCC_ABI_VERSION),
                          Bound(PERFCC_DESC_START), Bound(PERFCC_DESC_STOP)});
  B.CreateRetVoid();
  // One constructor per DSO: every module emits it in the same comdat and
  // the linker keeps one, with its .init_array entry. (The runtime also
  // ignores a second registration of the same section.)
  if (Triple(M.getTargetTriple()).supportsCOMDAT()) {
    Ctor->setComdat(M.getOrInsertComdat(PERFCC_MODULE_CTOR));
    appendToGlobalCtors(M, Ctor, /*Priority=*/1, Ctor);
  } else {
    appendToGlobalCtors(M, Ctor, /*Priority=*/1);
  }
}

// Declared only when a function is instrumented: a module with nothing
// selected is left exactly as it was.
void ModuleInstrumenter::declareProbes() {
  if (Enter)
    return;
  // nonlazybind: called through the GOT, not a PLT stub (one jump less
  // per probe; the runtime is bound at load time anyway).
  AttributeList ProbeAttrs = AttributeList()
                                 .addFnAttribute(Ctx, Attribute::NoUnwind)
                                 .addFnAttribute(Ctx, Attribute::NonLazyBind);
  FunctionType *ProbeTy = FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false);
  Enter = M.getOrInsertFunction(PERFCC_ENTER, ProbeTy, ProbeAttrs);
  Exit = M.getOrInsertFunction(PERFCC_EXIT, ProbeTy, ProbeAttrs);
  Unwind = M.getOrInsertFunction(PERFCC_UNWIND, ProbeTy, ProbeAttrs);
  Resync = M.getOrInsertFunction(PERFCC_RESYNC, ProbeTy, ProbeAttrs);
}

bool ModuleInstrumenter::run() {
  if (M.getModuleFlag(PERFCC_MODULE_FLAG))
    return false; // already instrumented: running twice changes nothing
  if (isDeviceTriple(Triple(M.getTargetTriple())))
    return false; // GPU code: probes are host-side only

  SmallVector<Function *, 64> Defined;
  for (Function &F : M)
    if (!F.isDeclaration())
      Defined.push_back(&F);

  bool Changed = false;
  for (Function *F : Defined) {
    Decision D = decide(*F);
    if (D.instrumented) {
      declareProbes();
      instrument(*F, createDescriptor(*F, D.info));
      Changed = true;
    }
    Report.record(*F, std::move(D));
  }

  if (!Opts.reportPath.empty()) {
    std::string Error =
        Report.appendTo(Opts.reportPath, M.getSourceFileName(),
                        Opts.stage == Stage::Early ? "early" : "late");
    if (!Error.empty())
      Ctx.diagnose(PerfDiagnostic("perfcc: " + Error, DS_Warning));
  }

  if (Changed) {
    emitRegistrationConstructor();
    M.addModuleFlag(Module::Max, PERFCC_MODULE_FLAG, 1);
  }
  return Changed;
}

} // namespace

PreservedAnalyses PerfInstrumentPass::run(Module &M, ModuleAnalysisManager &) {
  return ModuleInstrumenter(M, Options).run() ? PreservedAnalyses::none()
                                              : PreservedAnalyses::all();
}

PreservedAnalyses ConsumeInstrumentAttrsPass::run(Module &M,
                                                  ModuleAnalysisManager &) {
  static constexpr const char *Entry = "instrument-function-entry-inlined";
  static constexpr const char *Exit = "instrument-function-exit-inlined";
  // Clang leaves the attributes off exactly the no_instrument_function
  // functions, but only when -finstrument-functions-after-inlining was given.
  // perfcc gives it and says so (AttrsGiven); with plain clang the module
  // itself is the only evidence: one marked function shows the flag was
  // given. (A module whose every function is no_instrument_function then
  // looks like one built without the flag: docs/perfcc.md.)
  bool FlagGiven = AttrsGiven;
  for (Function &F : M)
    FlagGiven |= F.hasFnAttribute(Entry);
  if (!FlagGiven)
    return PreservedAnalyses::all();
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (!F.hasFnAttribute(Entry))
      F.addFnAttr(PerfNeverAttr);
    F.removeFnAttr(Entry);
    F.removeFnAttr(Exit);
  }
  return PreservedAnalyses::all();
}

} // namespace perfcc
