#include "simt/instrument/argument_reads.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "simt/instrument/fast_variant.h"

namespace metalsim::instrument {

using namespace llvm;
using namespace llvm::PatternMatch;

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

// ------------------------------ function constants
// Kernel code reads a function constant through engine::function_constant(index)
// (simt/engine/threadgroup_memory.h; generated::FunctionConstant): a call whose result is loaded
// from reads the value, one whose result is only compared with null asks whether it is defined.
constexpr const char* kFunctionConstant = "_ZN8metalsim6engine17function_constantEj";

// The constant index `v`, a call, asks engine::function_constant for, or -1.
int64_t constant_index(const Value* v, const Function* fc) {
  const auto* call = dyn_cast<CallBase>(v);
  if (fc == nullptr || call == nullptr || call->getCalledFunction() != fc || call->arg_size() != 1)
    return -1;
  const auto* c = dyn_cast<ConstantInt>(call->getArgOperand(0));
  return c != nullptr ? int64_t(c->getZExtValue()) : -1;
}

// Whether the value `p` points at is loaded (through constant offsets, or copied).
bool loaded_from(const Value& p, unsigned depth = 0) {
  for (const User* u : p.users()) {
    if (isa<LoadInst>(u)) return true;
    if (const auto* copy = dyn_cast<MemTransferInst>(u); copy != nullptr && copy->getSource() == &p)
      return true;
    if (isa<GEPOperator>(u) && depth < 4 && loaded_from(*u, depth + 1)) return true;
  }
  return false;
}

// Whether `cond` having the value `when` implies that function constant `index` is defined:
// `function_constant(index) != nullptr` from a call other than `read` (whose own null test is the
// path an unset constant's read takes), or a logical and / or / not of such tests.
bool implies_defined(Value* cond, int64_t index, const Value* read, const Function* fc, bool when,
                     unsigned depth = 0) {
  if (depth > 8) return false;
  if (const auto* cmp = dyn_cast<ICmpInst>(cond)) {
    if (!cmp->isEquality()) return false;
    const Value* a = cmp->getOperand(0);
    const Value* b = cmp->getOperand(1);
    if (isa<ConstantPointerNull>(a)) std::swap(a, b);
    if (!isa<ConstantPointerNull>(b) || a == read || constant_index(a, fc) != index) return false;
    return (cmp->getPredicate() == ICmpInst::ICMP_NE) == when;
  }
  Value *x = nullptr, *y = nullptr;
  if (when && match(cond, m_LogicalAnd(m_Value(x), m_Value(y))))
    return implies_defined(x, index, read, fc, true, depth + 1) ||
           implies_defined(y, index, read, fc, true, depth + 1);
  if (!when && match(cond, m_LogicalOr(m_Value(x), m_Value(y))))
    return implies_defined(x, index, read, fc, false, depth + 1) ||
           implies_defined(y, index, read, fc, false, depth + 1);
  if (match(cond, m_Not(m_Value(x)))) return implies_defined(x, index, read, fc, !when, depth + 1);
  return false;
}

// Whether `at` runs only after a branch found function constant `index` defined.
bool guarded(const Instruction& at, int64_t index, const Value* read, const Function* fc,
             const DominatorTree& dt) {
  const BasicBlock* block = at.getParent();
  const DomTreeNode* node = dt.getNode(block);
  for (node = node != nullptr ? node->getIDom() : nullptr; node != nullptr;
       node = node->getIDom()) {
    const auto* br = dyn_cast<BranchInst>(node->getBlock()->getTerminator());
    if (br == nullptr || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1))
      continue;
    for (unsigned s : {0U, 1U})
      if (dt.dominates(BasicBlockEdge(node->getBlock(), br->getSuccessor(s)), block) &&
          implies_defined(br->getCondition(), index, read, fc, s == 0))
        return true;
  }
  return false;
}

// The function constants a kernel needs a value of.
class ConstantReads {
 public:
  explicit ConstantReads(const Function* fc) : fc_(fc) {}

  // The function constants whose value `entry`'s code reads with no test that they are defined.
  std::set<uint32_t> required(Function& entry) {
    std::set<uint32_t> out;
    for (Function* f : reachable_from(entry))
      for (Instruction& inst : instructions(*f)) {
        const int64_t index = constant_index(&inst, fc_);
        if (index >= 0 && loaded_from(inst) && unguarded(inst, index, &inst, entry, 0))
          out.insert(uint32_t(index));
      }
    return out;
  }

  // Every function constant `entry`'s code reads or tests: a pipeline can only be made of the
  // function specialised (Library::newFunction with values), as Metal requires of a function
  // that uses function constants.
  std::set<uint32_t> used(Function& entry) {
    std::set<uint32_t> out;
    for (Function* f : reachable_from(entry))
      for (Instruction& inst : instructions(*f))
        if (const int64_t index = constant_index(&inst, fc_); index >= 0)
          out.insert(uint32_t(index));
    return out;
  }

 private:
  // Whether `at` may run with `index` undefined: no test guards it in its function, and that
  // function is the entry or is called from a call site no test guards. A function reached other
  // than by direct calls counts as guarded: no error is better than a false one.
  bool unguarded(const Instruction& at, int64_t index, const Value* read, const Function& entry,
                 unsigned depth) {
    const Function* f = at.getFunction();
    if (guarded(at, index, read, fc_, tree(*f))) return false;
    if (f == &entry) return true;
    if (depth > 4) return false;
    for (const User* u : f->users()) {
      const auto* call = dyn_cast<CallBase>(u);
      if (call == nullptr || call->getCalledFunction() != f) return false;
    }
    for (const User* u : f->users())
      if (unguarded(*cast<CallBase>(u), index, nullptr, entry, depth + 1)) return true;
    return false;
  }

  const DominatorTree& tree(const Function& f) {
    std::unique_ptr<DominatorTree>& slot = trees_[&f];
    if (!slot) slot = std::make_unique<DominatorTree>(const_cast<Function&>(f));
    return *slot;
  }

  static std::vector<Function*> reachable_from(Function& entry) {
    std::vector<Function*> seen{&entry};
    for (size_t i = 0; i < seen.size(); ++i)
      for (Instruction& inst : instructions(*seen[i]))
        if (const auto* call = dyn_cast<CallBase>(&inst))
          if (Function* callee = call->getCalledFunction();
              callee != nullptr && !callee->isDeclaration() &&
              std::find(seen.begin(), seen.end(), callee) == seen.end())
            seen.push_back(callee);
    return seen;
  }

  const Function* fc_;
  std::map<const Function*, std::unique_ptr<DominatorTree>> trees_;
};

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
      kArgumentReadsRegister,
      FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr, i32, ptr, i32}, false));
  Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
                                    GlobalValue::InternalLinkage, "metalsim.argument_reads", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", ctor));
  // A table of `values` in the module, or null when there are none.
  auto table = [&](const std::vector<uint32_t>& values, const char* name) -> Constant* {
    if (values.empty()) return ConstantPointerNull::get(ptr);
    Constant* data = ConstantDataArray::get(ctx, values);
    return new GlobalVariable(m, data->getType(), true, GlobalValue::PrivateLinkage, data, name);
  };
  ConstantReads constants(m.getFunction(kFunctionConstant));
  for (Function* f : found) {
    std::vector<Range> reads;
    if (!collect(*f->getArg(0), 0, m.getDataLayout(), reads)) continue;
    std::vector<uint32_t> flat;
    for (const Range& r : reads) flat.insert(flat.end(), {r.offset, r.size});
    // Unoptimised code keeps is_function_constant_defined a call of its own, which hides the
    // tests: no constant is known required there.
    // The constants the entry uses but does not require follow, marked kOptionalConstant.
    const std::set<uint32_t> set = f->hasOptNone() ? std::set<uint32_t>{} : constants.required(*f);
    std::vector<uint32_t> required(set.begin(), set.end());
    for (const uint32_t index : constants.used(*f))
      if (set.count(index) == 0) required.push_back(index | kOptionalConstant);
    b.CreateCall(
        reg, {f, table(flat, "metalsim.argument_reads.table"), ConstantInt::get(i32, reads.size()),
              table(required, "metalsim.argument_reads.constants"),
              ConstantInt::get(i32, required.size())});
  }
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 65535);
  return PreservedAnalyses::none();
}

}  // namespace metalsim::instrument
