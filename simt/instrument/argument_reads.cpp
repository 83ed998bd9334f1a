#include "simt/instrument/argument_reads.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
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

#include "simt/abi/constant_conditions.h"
#include "simt/instrument/fast_variant.h"

namespace metalsim::instrument {

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

// How deep a value is followed through calls that pass it on.
constexpr unsigned kMaxCallDepth = 8;

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

// ------------------------------ conditions on function constants
// A build-time kernel reads its function constants at run time, so a binding it uses only under
// `if (c)` is loaded all the same; Metal, which folds the constants when it makes the pipeline,
// drops such an argument while c is false. For each use of a binding, the branch conditions that
// dominate it and depend on nothing but constants and function-constant reads are copied into a
// table of nodes (simt/abi/constant_conditions.h); the engine evaluates them with the pipeline's
// values, and a use whose conditions cannot all hold there never runs. A condition that cannot be
// copied is left out, which only makes the argument active more often.
namespace cond = metalsim::abi::conditions;

static_assert(uint32_t(CmpInst::ICMP_EQ) == cond::kIcmpEq &&
              uint32_t(CmpInst::ICMP_NE) == cond::kIcmpNe &&
              uint32_t(CmpInst::ICMP_UGT) == cond::kIcmpUgt &&
              uint32_t(CmpInst::ICMP_SLE) == cond::kIcmpSle &&
              uint32_t(CmpInst::FCMP_FALSE) == cond::kFcmpFalse &&
              uint32_t(CmpInst::FCMP_OGT) == 2 && uint32_t(CmpInst::FCMP_UNO) == 8 &&
              uint32_t(CmpInst::FCMP_TRUE) == cond::kFcmpTrue);

// How many conditions of one use are kept, and how many uses of one binding (more: the binding
// counts as read whatever the constants).
constexpr size_t kMaxAtoms = 16;
constexpr size_t kMaxGuards = 64;
constexpr unsigned kMaxExpressionDepth = 24;

// One condition of a use: the node, and the value (0 or 1) it has wherever the use runs.
using Atom = uint32_t;  // node << 1 | value
using Guard = std::vector<Atom>;

class ConditionTable {
 public:
  explicit ConditionTable(const Function* fc) : fc_(fc) {}

  // The node computing `v` from constants and function constants only, or -1.
  int64_t node(const Value* v, unsigned depth = 0) {
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    memo_[v] = -1;  // while it is built: a value that depends on itself (a loop) is not copied
    const int64_t n = depth > kMaxExpressionDepth ? -1 : build(v, depth);
    memo_[v] = n;
    return n;
  }

  // The conditions that hold wherever `at` runs: every branch on a copyable condition whose edge
  // dominates `at`'s block.
  Guard guard(const Instruction& at) {
    Guard out;
    const BasicBlock* block = at.getParent();
    const DominatorTree& dt = tree(*at.getFunction());
    const DomTreeNode* n = dt.getNode(block);
    for (n = n != nullptr ? n->getIDom() : nullptr; n != nullptr && out.size() < kMaxAtoms;
         n = n->getIDom()) {
      const auto* br = dyn_cast<BranchInst>(n->getBlock()->getTerminator());
      if (br == nullptr || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1))
        continue;
      for (unsigned s : {0U, 1U})
        if (dt.dominates(BasicBlockEdge(n->getBlock(), br->getSuccessor(s)), block))
          atoms(br->getCondition(), s == 0, out);
    }
    return out;
  }

  // Into `out`, what `cond` having the value `value` says of the constants: `cond` itself when
  // it is a condition on them alone, else the parts of a logical and that holds (or of an or that
  // does not) that are (`has_sinks && sgitg == 0` taken: has_sinks).
  void atoms(const Value* cond, bool value, Guard& out, unsigned depth = 0) {
    if (out.size() >= kMaxAtoms || depth > 8) return;
    if (const int64_t c = node(cond); c >= 0) {
      out.push_back(uint32_t(c) << 1 | (value ? 1U : 0U));
      return;
    }
    const Value *x = nullptr, *y = nullptr;
    if ((value && match(cond, m_LogicalAnd(m_Value(x), m_Value(y)))) ||
        (!value && match(cond, m_LogicalOr(m_Value(x), m_Value(y))))) {
      atoms(x, value, out, depth + 1);
      atoms(y, value, out, depth + 1);
    } else if (match(cond, m_Not(m_Value(x)))) {
      atoms(x, !value, out, depth + 1);
    }
  }

  const std::vector<uint32_t>& nodes() const { return nodes_; }

 private:
  int64_t add(uint32_t w0, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    nodes_.insert(nodes_.end(), {w0, a, b, c});
    return int64_t(nodes_.size() / cond::kNodeWords - 1);
  }

  // The width of an integer, or of a float or double (is_float), `t`; 0 for other types.
  static uint32_t width_of(const Type* t, bool& is_float) {
    is_float = t->isFloatTy() || t->isDoubleTy();
    if (is_float) return t->isFloatTy() ? 32 : 64;
    if (const auto* i = dyn_cast<IntegerType>(t); i != nullptr && i->getBitWidth() <= 64)
      return i->getBitWidth();
    return 0;
  }

  int64_t build(const Value* v, unsigned depth) {
    bool is_float = false;
    const uint32_t width = width_of(v->getType(), is_float);
    if (const auto* c = dyn_cast<ConstantInt>(v)) {
      if (width == 0) return -1;
      const uint64_t x = c->getZExtValue();
      return add(cond::word0(cond::Op::Int, width), uint32_t(x), uint32_t(x >> 32));
    }
    if (const auto* c = dyn_cast<ConstantFP>(v)) {
      if (!is_float) return -1;
      bool lost = false;
      APFloat d = c->getValueAPF();
      d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      const uint64_t x = d.bitcastToAPInt().getZExtValue();
      return add(cond::word0(cond::Op::Int, width, true), uint32_t(x), uint32_t(x >> 32));
    }
    if (isa<ConstantPointerNull>(v)) return add(cond::word0(cond::Op::Null, 64));
    if (const int64_t index = constant_index(v, fc_); index >= 0)
      return add(cond::word0(cond::Op::Constant, 64), uint32_t(index));
    auto sub = [&](const Value* x) { return node(x, depth + 1); };
    if (const auto* gep = dyn_cast<GEPOperator>(v)) {
      const DataLayout& dl = cast<Instruction>(v)->getModule()->getDataLayout();
      APInt delta(dl.getIndexTypeSizeInBits(gep->getType()), 0);
      const int64_t base = sub(gep->getPointerOperand());
      if (base < 0 || !gep->accumulateConstantOffset(dl, delta) || delta.isNegative() ||
          delta.getZExtValue() > 0xffff)
        return -1;
      return add(cond::word0(cond::Op::Offset, 64), uint32_t(base), uint32_t(delta.getZExtValue()));
    }
    const auto* inst = dyn_cast<Instruction>(v);
    if (inst == nullptr) return -1;
    if (const auto* load = dyn_cast<LoadInst>(inst)) {
      const int64_t p = sub(load->getPointerOperand());
      if (width == 0 || width % 8 != 0 || load->isVolatile() || p < 0) return -1;
      return add(cond::word0(cond::Op::Load, width, is_float), uint32_t(p));
    }
    if (const auto* cmp = dyn_cast<CmpInst>(inst)) {
      const int64_t a = sub(cmp->getOperand(0));
      const int64_t b = a < 0 ? -1 : sub(cmp->getOperand(1));
      if (b < 0 || cmp->getOperand(0)->getType()->isVectorTy()) return -1;
      const cond::Op op = isa<ICmpInst>(cmp) ? cond::Op::ICmp : cond::Op::FCmp;
      return add(cond::word0(op, 1, false, cmp->getPredicate()), uint32_t(a), uint32_t(b));
    }
    if (const auto* bin = dyn_cast<BinaryOperator>(inst)) {
      static const std::map<unsigned, cond::Op> ops = {
          {Instruction::Add, cond::Op::Add},  {Instruction::Sub, cond::Op::Sub},
          {Instruction::Mul, cond::Op::Mul},  {Instruction::And, cond::Op::And},
          {Instruction::Or, cond::Op::Or},    {Instruction::Xor, cond::Op::Xor},
          {Instruction::Shl, cond::Op::Shl},  {Instruction::LShr, cond::Op::LShr},
          {Instruction::AShr, cond::Op::AShr}};
      const auto op = ops.find(bin->getOpcode());
      if (op == ops.end() || width == 0 || is_float) return -1;
      const int64_t a = sub(bin->getOperand(0));
      const int64_t b = a < 0 ? -1 : sub(bin->getOperand(1));
      return b < 0 ? -1 : add(cond::word0(op->second, width), uint32_t(a), uint32_t(b));
    }
    if (const auto* cast_inst = dyn_cast<CastInst>(inst)) {
      bool from_float = false;
      const uint32_t from = width_of(cast_inst->getSrcTy(), from_float);
      const int64_t a = sub(cast_inst->getOperand(0));
      if (a < 0 || width == 0 || from == 0) return -1;
      switch (cast_inst->getOpcode()) {
        case Instruction::Trunc: return add(cond::word0(cond::Op::Trunc, width), uint32_t(a));
        case Instruction::ZExt: return add(cond::word0(cond::Op::ZExt, width), uint32_t(a), from);
        case Instruction::SExt: return add(cond::word0(cond::Op::SExt, width), uint32_t(a), from);
        case Instruction::FPExt:
        case Instruction::FPTrunc:
          return add(cond::word0(cond::Op::FPCast, width, true), uint32_t(a));
        case Instruction::SIToFP:
          return add(cond::word0(cond::Op::SIToFP, width, true), uint32_t(a), from);
        case Instruction::UIToFP:
          return add(cond::word0(cond::Op::UIToFP, width, true), uint32_t(a), from);
        default: return -1;
      }
    }
    if (const auto* f = dyn_cast<FreezeInst>(inst)) return sub(f->getOperand(0));
    if (const auto* sel = dyn_cast<SelectInst>(inst)) {
      if (sel->getCondition()->getType()->isVectorTy()) return -1;
      const int64_t c = sub(sel->getCondition());
      const int64_t a = c < 0 ? -1 : sub(sel->getTrueValue());
      const int64_t b = a < 0 ? -1 : sub(sel->getFalseValue());
      return b < 0
                 ? -1
                 : add(cond::word0(cond::Op::Select, width), uint32_t(c), uint32_t(a), uint32_t(b));
    }
    if (const auto* phi = dyn_cast<PHINode>(inst)) return phi_node(*phi, width, depth);
    return -1;
  }

  // A phi of two values whose block J is entered from its immediate dominator D, directly or
  // through a block that only D enters and that only goes on to J (`p ? *p : 0`, the read of a
  // function constant that may be unset): a select on D's branch condition.
  int64_t phi_node(const PHINode& phi, uint32_t width, unsigned depth) {
    if (phi.getNumIncomingValues() != 2) return -1;
    const BasicBlock* join = phi.getParent();
    const DomTreeNode* jn = tree(*phi.getFunction()).getNode(join);
    const DomTreeNode* dn = jn != nullptr ? jn->getIDom() : nullptr;
    if (dn == nullptr) return -1;
    const BasicBlock* d = dn->getBlock();
    const auto* br = dyn_cast<BranchInst>(d->getTerminator());
    if (br == nullptr || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1))
      return -1;
    // The successor of D through which each incoming edge comes.
    int64_t value[2] = {-1, -1};
    for (unsigned i = 0; i < 2; ++i) {
      const BasicBlock* from = phi.getIncomingBlock(i);
      int s = -1;
      for (unsigned k : {0U, 1U}) {
        const BasicBlock* succ = br->getSuccessor(k);
        if (from == d && succ == join) s = int(k);
        if (from != d && succ == from && from->getSinglePredecessor() == d &&
            from->getUniqueSuccessor() == join && from->getTerminator()->getNumSuccessors() == 1)
          s = int(k);
      }
      if (s < 0 || value[s] >= 0) return -1;
      value[s] = node(phi.getIncomingValue(i), depth + 1);
      if (value[s] < 0) return -1;
    }
    const int64_t c = node(br->getCondition(), depth + 1);
    if (c < 0) return -1;
    return add(cond::word0(cond::Op::Select, width), uint32_t(c), uint32_t(value[0]),
               uint32_t(value[1]));
  }

  const DominatorTree& tree(const Function& f) {
    std::unique_ptr<DominatorTree>& slot = trees_[&f];
    if (!slot) slot = std::make_unique<DominatorTree>(const_cast<Function&>(f));
    return *slot;
  }

  const Function* fc_;
  std::vector<uint32_t> nodes_;
  std::map<const Value*, int64_t> memo_;
  std::map<const Function*, std::unique_ptr<DominatorTree>> trees_;
};

// How many uses of a value loaded from a binding are followed; past it the binding counts as
// read whatever the constants.
constexpr unsigned kMaxValueSteps = 4096;
constexpr unsigned kMaxValueDepth = 32;

// The uses of `v`, a value loaded from a binding's memory, that need it, each with the
// conditions under which it runs, into `out`; `picked` holds the conditions under which `v` is
// what reaches this point (the arms of selects it went through). Followed through arithmetic
// (not as a divisor: an absent argument's zeros would trap), casts, phis and the arms of selects;
// anything else that takes it (a store, a compare, an address, a call) is a use.
void value_uses(const Value& v, const Guard& outer, const Guard& picked, unsigned depth,
                ConditionTable& table, std::set<const Value*>& on_path, unsigned& steps,
                std::vector<Guard>& out) {
  if (++steps > kMaxValueSteps || depth > kMaxValueDepth) {
    out.push_back({});  // too many to follow: a use with no known condition
    return;
  }
  if (!on_path.insert(&v).second) return;  // around a loop: its uses are being followed
  for (const Use& u : v.uses()) {
    const auto* user = dyn_cast<Instruction>(u.getUser());
    Guard here = picked;
    if (user != nullptr) {
      const auto* sel = dyn_cast<SelectInst>(user);
      const auto* bin = dyn_cast<BinaryOperator>(user);
      const bool divisor =
          bin != nullptr && u.getOperandNo() == 1 &&
          (bin->getOpcode() == Instruction::UDiv || bin->getOpcode() == Instruction::SDiv ||
           bin->getOpcode() == Instruction::URem || bin->getOpcode() == Instruction::SRem);
      if (sel != nullptr && u.getOperandNo() != 0) {
        table.atoms(sel->getCondition(), u.getOperandNo() == 1, here);
        value_uses(*user, outer, here, depth + 1, table, on_path, steps, out);
        continue;
      }
      if ((bin != nullptr && !divisor) || isa<UnaryOperator>(user) || isa<FreezeInst>(user) ||
          isa<PHINode>(user) ||
          (isa<CastInst>(user) && !isa<IntToPtrInst>(user) && !isa<PtrToIntInst>(user))) {
        value_uses(*user, outer, here, depth + 1, table, on_path, steps, out);
        continue;
      }
      for (const Atom a : table.guard(*user))
        if (here.size() < kMaxAtoms) here.push_back(a);
    }
    for (const Atom a : outer)
      if (here.size() < kMaxAtoms) here.push_back(a);
    out.push_back(std::move(here));
  }
  on_path.erase(&v);
}

// The uses of a binding's value `v` (a pointer `offset` bytes into the bound memory, when known)
// that need it, each with the conditions that hold where it runs, into `out`. Followed through
// address arithmetic, phis and selects, and into the parameters of defined functions (one the
// linker cannot replace; their conditions added to the call's), so a value that a callee uses for
// nothing is not needed. A load through it at a known offset within what an absent argument
// points at (kAbsentBytes of zeros: the load is harmless there) is needed where its value is
// (value_uses): Clang hoists the loads of a `constant T&` above the branch that uses them, where
// Metal's compiler, the branch folded, drops them. Anything else that takes the value (a load
// elsewhere, a store through it or of it, a comparison, any other call) is a use.
void uses_of(const Value& v, std::optional<uint64_t> offset, const Guard& outer, unsigned depth,
             ConditionTable& table, std::set<const Value*>& seen, std::vector<Guard>& out) {
  if (!seen.insert(&v).second || out.size() > kMaxGuards) return;
  for (const Use& u : v.uses()) {
    const auto* user = dyn_cast<Instruction>(u.getUser());
    if (user == nullptr) {
      out.push_back(outer);  // a constant expression: not followed
      continue;
    }
    if (const auto* gep = dyn_cast<GetElementPtrInst>(user)) {
      const DataLayout& dl = gep->getModule()->getDataLayout();
      APInt delta(dl.getIndexTypeSizeInBits(gep->getType()), 0);
      std::optional<uint64_t> at;
      if (offset && gep->getPointerOperand() == &v && gep->accumulateConstantOffset(dl, delta) &&
          !delta.isNegative())
        at = *offset + delta.getZExtValue();
      uses_of(*user, at, outer, depth, table, seen, out);
      continue;
    }
    if (isa<BitCastInst>(user) || isa<AddrSpaceCastInst>(user) || isa<FreezeInst>(user)) {
      uses_of(*user, offset, outer, depth, table, seen, out);
      continue;
    }
    if (isa<PHINode>(user) || (isa<SelectInst>(user) && u.getOperandNo() != 0)) {
      uses_of(*user, std::nullopt, outer, depth, table, seen, out);
      continue;
    }
    if (const auto* load = dyn_cast<LoadInst>(user);
        load != nullptr && offset && !load->isVolatile() &&
        u.getOperandNo() == LoadInst::getPointerOperandIndex()) {
      const uint64_t bytes = load->getModule()->getDataLayout().getTypeStoreSize(load->getType());
      if (*offset + bytes <= cond::kAbsentBytes) {
        std::set<const Value*> on_path;
        unsigned steps = 0;
        value_uses(*load, outer, {}, 0, table, on_path, steps, out);
        continue;
      }
    }
    Guard here = outer;
    for (const Atom a : table.guard(*user))
      if (here.size() < kMaxAtoms) here.push_back(a);
    const auto* call = dyn_cast<CallBase>(user);
    const Function* callee = call != nullptr ? call->getCalledFunction() : nullptr;
    if (call != nullptr && call->isArgOperand(&u) && callee != nullptr &&
        !callee->isDeclaration() && !callee->isInterposable() && !callee->isVarArg() &&
        depth < kMaxCallDepth && call->getArgOperandNo(&u) < callee->arg_size()) {
      std::set<const Value*> inner;  // the callee's values, reached from this call
      uses_of(*callee->getArg(call->getArgOperandNo(&u)), offset, here, depth + 1, table, inner,
              out);
      continue;
    }
    out.push_back(std::move(here));
  }
}

struct Range {
  uint32_t offset;
  uint32_t size;
  std::vector<Guard> guards;  // one per use; empty: read whatever the constants
};

// The ranges read through `base`, `offset` bytes into the bindings, into `out`; false when `base`
// has a use that is neither a constant offset nor a load.
bool collect(const Value& base, uint64_t offset, const DataLayout& dl, ConditionTable& table,
             std::vector<Range>& out) {
  for (const Use& u : base.uses()) {
    const User* user = u.getUser();
    if (const auto* gep = dyn_cast<GEPOperator>(user)) {
      APInt delta(dl.getIndexTypeSizeInBits(gep->getType()), 0);
      if (gep->getPointerOperand() != &base || !gep->accumulateConstantOffset(dl, delta) ||
          delta.isNegative() || !collect(*gep, offset + delta.getZExtValue(), dl, table, out))
        return false;
    } else if (const auto* load = dyn_cast<LoadInst>(user)) {
      Range r{static_cast<uint32_t>(offset),
              static_cast<uint32_t>(dl.getTypeStoreSize(load->getType())),
              {}};
      if (!load->isVolatile()) {
        std::set<const Value*> seen;
        // Through a buffer's binding, loads at known offsets are followed to their values' uses
        // (what an absent buffer points at is readable); through any other, a load is a use.
        const std::optional<uint64_t> at =
            offset < cond::kBufferBindingBytes ? std::optional<uint64_t>(0) : std::nullopt;
        uses_of(*load, at, {}, 0, table, seen, r.guards);
        if (r.guards.empty()) continue;  // nothing needs the value
        const bool always =
            r.guards.size() > kMaxGuards ||
            std::any_of(r.guards.begin(), r.guards.end(), [](const Guard& g) { return g.empty(); });
        if (always) r.guards.clear();
      }
      out.push_back(std::move(r));
    } else {
      return false;
    }
  }
  return true;
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
      FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr, i32, ptr, i32, ptr, ptr}, false));
  Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
                                    GlobalValue::InternalLinkage, "metalsim.argument_reads", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", ctor));
  // A table of `values` in the module, or null when there are none.
  auto table = [&](const std::vector<uint32_t>& values, const char* name) -> Constant* {
    if (values.empty()) return ConstantPointerNull::get(ptr);
    Constant* data = ConstantDataArray::get(ctx, values);
    return new GlobalVariable(m, data->getType(), true, GlobalValue::PrivateLinkage, data, name);
  };
  const Function* fc = m.getFunction(kFunctionConstant);
  ConstantReads constants(fc);
  struct Entry {
    Function* f;
    std::vector<uint32_t> ranges;  // (offset, size, condition) triples
    std::vector<uint32_t> guards;  // the conditions the triples point into
    std::vector<uint32_t> constants;
    std::vector<uint32_t> nodes;  // the conditions' nodes
  };
  std::vector<Entry> entries;
  for (Function* f : found) {
    std::vector<Range> reads;
    ConditionTable conditions(fc);  // one per entry: the engine keeps what its entry needs
    if (!collect(*f->getArg(0), 0, m.getDataLayout(), conditions, reads)) continue;
    Entry e{f, {}, {}, {}, {}};
    for (const Range& r : reads) {
      uint32_t at = cond::kAlways;
      if (!r.guards.empty()) {
        at = uint32_t(e.guards.size());
        e.guards.push_back(uint32_t(r.guards.size()));
        for (const Guard& g : r.guards) {
          e.guards.push_back(uint32_t(g.size()));
          e.guards.insert(e.guards.end(), g.begin(), g.end());
        }
      }
      e.ranges.insert(e.ranges.end(), {r.offset, r.size, at});
    }
    // Unoptimised code keeps is_function_constant_defined a call of its own, which hides the
    // tests: no constant is known required there.
    // The constants the entry uses but does not require follow, marked kOptionalConstant.
    const std::set<uint32_t> set = f->hasOptNone() ? std::set<uint32_t>{} : constants.required(*f);
    e.constants.assign(set.begin(), set.end());
    for (const uint32_t index : constants.used(*f))
      if (set.count(index) == 0) e.constants.push_back(index | kOptionalConstant);
    if (!e.guards.empty()) e.nodes = conditions.nodes();
    entries.push_back(std::move(e));
  }
  for (const Entry& e : entries)
    b.CreateCall(reg, {e.f, table(e.ranges, "metalsim.argument_reads.table"),
                       ConstantInt::get(i32, e.ranges.size() / 3),
                       table(e.constants, "metalsim.argument_reads.constants"),
                       ConstantInt::get(i32, e.constants.size()),
                       table(e.guards, "metalsim.argument_reads.guards"),
                       table(e.nodes, "metalsim.argument_reads.nodes")});
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 65535);
  return PreservedAnalyses::none();
}

}  // namespace metalsim::instrument
