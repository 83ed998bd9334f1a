#include "simt/instrument/argument_reads.h"

#include <cstdint>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Operator.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "simt/instrument/fast_variant.h"

namespace metalsim::instrument {

using namespace llvm;

namespace {

// How deep a value is followed through calls that pass it on without using it.
constexpr unsigned kMaxCallDepth = 8;

// Whether something needs `v`: it has a use other than as an argument of a call to a defined
// function (one the linker cannot replace) whose parameter, in turn, nothing needs.
bool needed(const Value& v, unsigned depth) {
  for (const Use& u : v.uses()) {
    const auto* call = dyn_cast<CallBase>(u.getUser());
    if (call == nullptr || !call->isArgOperand(&u)) return true;
    const Function* callee = call->getCalledFunction();
    if (callee == nullptr || callee->isDeclaration() || callee->isInterposable() ||
        callee->isVarArg() || depth >= kMaxCallDepth)
      return true;
    const unsigned n = call->getArgOperandNo(&u);
    if (n >= callee->arg_size() || needed(*callee->getArg(n), depth + 1)) return true;
  }
  return false;
}

struct Range {
  uint32_t offset;
  uint32_t size;
};

// The ranges read through `base`, `offset` bytes into the bindings, into `out`; false when `base`
// has a use that is neither a constant offset nor a load.
bool collect(const Value& base, uint64_t offset, const DataLayout& dl, std::vector<Range>& out) {
  for (const Use& u : base.uses()) {
    const User* user = u.getUser();
    if (const auto* gep = dyn_cast<GEPOperator>(user)) {
      APInt delta(dl.getIndexTypeSizeInBits(gep->getType()), 0);
      if (gep->getPointerOperand() != &base || !gep->accumulateConstantOffset(dl, delta) ||
          delta.isNegative() || !collect(*gep, offset + delta.getZExtValue(), dl, out))
        return false;
    } else if (const auto* load = dyn_cast<LoadInst>(user)) {
      if (load->isVolatile() || needed(*load, 0))
        out.push_back({static_cast<uint32_t>(offset),
                       static_cast<uint32_t>(dl.getTypeStoreSize(load->getType()))});
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

PreservedAnalyses ArgumentReadsPass::run(Module& m, ModuleAnalysisManager&) {
  std::vector<Function*> found;
  for (Function* f : annotated_functions(m, kEntryAnnotation))
    if (!f->isDeclaration() && f->arg_size() > 0) found.push_back(f);
  if (found.empty()) return PreservedAnalyses::all();
  LLVMContext& ctx = m.getContext();
  auto* ptr = PointerType::get(ctx, 0);
  auto* i32 = Type::getInt32Ty(ctx);
  FunctionCallee reg = m.getOrInsertFunction(
      kArgumentReadsRegister, FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr, i32}, false));
  Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
                                    GlobalValue::InternalLinkage, "metalsim.argument_reads", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", ctor));
  for (Function* f : found) {
    std::vector<Range> reads;
    if (!collect(*f->getArg(0), 0, m.getDataLayout(), reads)) continue;
    std::vector<uint32_t> flat;
    for (const Range& r : reads) flat.insert(flat.end(), {r.offset, r.size});
    Constant* table = ConstantPointerNull::get(ptr);
    if (!flat.empty()) {
      Constant* data = ConstantDataArray::get(ctx, flat);
      table = new GlobalVariable(m, data->getType(), true, GlobalValue::PrivateLinkage, data,
                                 "metalsim.argument_reads.table");
    }
    b.CreateCall(reg, {f, table, ConstantInt::get(i32, reads.size())});
  }
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 65535);
  return PreservedAnalyses::none();
}

}  // namespace metalsim::instrument
