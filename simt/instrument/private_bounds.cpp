#include "simt/instrument/private_bounds.h"

#include <llvm/ADT/SetVector.h>
#include <llvm/Analysis/Utils/Local.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Local.h>

#include <string>
#include <utility>
#include <vector>

#include "simt/instrument/access_abi.h"

namespace metalsim::instrument {

using namespace llvm;

namespace {

// One private array: its alloca, size and name.
struct PrivateArray {
  AllocaInst* alloca = nullptr;
  uint64_t bytes = 0;
  uint64_t element_bytes = 0;  // of its innermost element (float for float m[4][4])
  std::string name;
};

// One access through it: `pointer` is the array's alloca indexed by `path` (outermost first).
struct PrivateAccess {
  Instruction* at;
  std::vector<GetElementPtrInst*> path;
  uint64_t bytes;
  bool write;
};

// The variable's name, from the debug records that locate it at the alloca (clang discards IR
// value names in release builds). Found through LLVM's own findDbgUsers: this plugin, built by
// the host compiler, misreads a record's location inline.
std::string variable_name(AllocaInst& a) {
  SmallVector<DbgVariableIntrinsic*, 2> intrinsics;
  SmallVector<DbgVariableRecord*, 2> records;
  findDbgUsers(intrinsics, &a, &records);
  for (DbgVariableRecord* r : records) return r->getVariable()->getName().str();
  for (DbgVariableIntrinsic* d : intrinsics) return d->getVariable()->getName().str();
  return "<unnamed>";
}

std::optional<PrivateArray> private_array(AllocaInst& a, const DataLayout& dl) {
  auto* array = dyn_cast<ArrayType>(a.getAllocatedType());
  if (array == nullptr || !a.isStaticAlloca() || a.isArrayAllocation()) return std::nullopt;
  Type* element = array;
  while (auto* inner = dyn_cast<ArrayType>(element)) element = inner->getElementType();
  PrivateArray p{&a, dl.getTypeAllocSize(array).getFixedValue(),
                 dl.getTypeAllocSize(element).getFixedValue(), variable_name(a)};
  if (p.bytes == 0 || p.element_bytes == 0) return std::nullopt;
  return p;
}

// The loads and stores through `pointer` (the array or an index of it), following indexing.
void accesses_through(Value* pointer, std::vector<GetElementPtrInst*>& path, const DataLayout& dl,
                      std::vector<PrivateAccess>& out) {
  for (User* u : pointer->users()) {
    if (auto* load = dyn_cast<LoadInst>(u)) {
      if (!path.empty())
        out.push_back({load, path, dl.getTypeStoreSize(load->getType()).getFixedValue(), false});
    } else if (auto* store = dyn_cast<StoreInst>(u)) {
      if (!path.empty() && store->getPointerOperand() == pointer)
        out.push_back({store, path,
                       dl.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue(),
                       true});
    } else if (auto* gep = dyn_cast<GetElementPtrInst>(u); gep != nullptr && path.size() < 8) {
      path.push_back(gep);
      accesses_through(gep, path, dl, out);
      path.pop_back();
    }
  }
}

// The byte offset of the access from the array's start, computed just before it: each index of
// the path dominates it.
Value* offset_of(IRBuilder<>& b, const DataLayout& dl, const PrivateAccess& a) {
  Value* offset = b.getInt64(0);
  for (GetElementPtrInst* gep : a.path)
    offset = b.CreateAdd(offset, b.CreateSExtOrTrunc(emitGEPOffset(&b, dl, gep), b.getInt64Ty()));
  return offset;
}

// Whether every index of the path is a constant that keeps the access inside the array.
bool inside_for_sure(const PrivateAccess& a, const PrivateArray& p, const DataLayout& dl) {
  int64_t total = 0;
  for (GetElementPtrInst* gep : a.path) {
    APInt offset(64, 0);
    if (!gep->accumulateConstantOffset(dl, offset)) return false;
    total += offset.getSExtValue();
  }
  return total >= 0 && uint64_t(total) + a.bytes <= p.bytes;
}

void check_access(const PrivateAccess& a, const PrivateArray& p, FunctionCallee report,
                  const DataLayout& dl) {
  if (a.bytes > p.bytes || inside_for_sure(a, p, dl)) return;
  IRBuilder<> b(a.at);
  Value* offset = offset_of(b, dl, a);
  // Unsigned: a negative offset is past the end too.
  Value* outside = b.CreateICmpUGT(offset, b.getInt64(p.bytes - a.bytes));
  MDNode* unlikely = MDBuilder(b.getContext()).createUnlikelyBranchWeights();
  b.SetInsertPoint(SplitBlockAndInsertIfThen(outside, a.at->getIterator(), false, unlikely));
  Value* index = b.CreateSDiv(offset, b.getInt64(int64_t(p.element_bytes)));
  Constant* name = b.CreateGlobalStringPtr(p.name, "metalsim.private.name");
  CallInst* call = b.CreateCall(report, {name, b.getInt64(p.bytes / p.element_bytes), index,
                                         b.getInt32(a.write ? abi::kWrite : 0)});
  call->setDebugLoc(a.at->getDebugLoc());
}

bool instrument(Function& f, FunctionCallee report) {
  const DataLayout& dl = f.getParent()->getDataLayout();
  std::vector<std::pair<PrivateArray, std::vector<PrivateAccess>>> arrays;
  for (Instruction& inst : instructions(f)) {
    auto* a = dyn_cast<AllocaInst>(&inst);
    std::optional<PrivateArray> p = a != nullptr ? private_array(*a, dl) : std::nullopt;
    if (!p) continue;
    std::vector<GetElementPtrInst*> path;
    std::vector<PrivateAccess> accesses;
    accesses_through(a, path, dl, accesses);
    if (!accesses.empty()) arrays.emplace_back(std::move(*p), std::move(accesses));
  }
  for (const auto& [p, accesses] : arrays)
    for (const PrivateAccess& a : accesses) check_access(a, p, report, dl);
  return !arrays.empty();
}

FunctionCallee report_function(Module& m) {
  LLVMContext& ctx = m.getContext();
  auto* i64 = Type::getInt64Ty(ctx);
  return m.getOrInsertFunction(
      kPrivateOutOfBounds,
      FunctionType::get(Type::getVoidTy(ctx),
                        {PointerType::get(ctx, 0), i64, i64, Type::getInt32Ty(ctx)}, false));
}

}  // namespace

PreservedAnalyses PrivateBoundsPass::run(Module& m, ModuleAnalysisManager&) {
  const FunctionCallee report = report_function(m);
  bool changed = false;
  for (Function& f : m) {
    if (f.isDeclaration() || f.getName().starts_with("__metalsim_") ||
        f.hasFnAttribute(Attribute::SanitizeThread))  // as the access-check pass
      continue;
    changed |= instrument(f, report);
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

namespace {

// Removes the branch from its predecessor to `then`, a block left with nothing to do, when the
// predecessor's test only chose between `then` and the block after it.
void skip_block(BasicBlock* then) {
  BasicBlock* pred = then->getSinglePredecessor();
  auto* test = pred != nullptr ? dyn_cast<BranchInst>(pred->getTerminator()) : nullptr;
  if (test == nullptr || !test->isConditional()) return;
  BasicBlock* next = test->getSuccessor(0) == then ? test->getSuccessor(1) : test->getSuccessor(0);
  if (then->getSingleSuccessor() != next || next == then) return;
  Value* condition = test->getCondition();
  BranchInst::Create(next, test->getIterator());
  test->eraseFromParent();
  DeleteDeadBlock(then);  // also drops `then` from the phis of `next`
  RecursivelyDeleteTriviallyDeadInstructions(condition);
}

}  // namespace

void drop_private_checks(Function& f) {
  // The calls' blocks were made by SplitBlockAndInsertIfThen (the optimizer may have merged
  // two): the call, maybe its index, a branch.
  SetVector<BasicBlock*> blocks;
  std::vector<CallInst*> calls;
  for (Instruction& inst : instructions(f))
    if (auto* call = dyn_cast<CallInst>(&inst);
        call != nullptr && call->getCalledFunction() &&
        call->getCalledFunction()->getName() == kPrivateOutOfBounds)
      calls.push_back(call);
  for (CallInst* call : calls) {
    blocks.insert(call->getParent());
    call->eraseFromParent();
  }
  for (BasicBlock* then : blocks) skip_block(then);
}

}  // namespace metalsim::instrument
