#include "simt/lanes/remat.h"

#include <algorithm>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include "simt/lanes/memory_space.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

enum class Kind { Constant, Uniform, PerLane, Other };

// The most instructions a per-lane value may take to recompute; a longer one is stored.
constexpr unsigned kMaxPerLaneCost = 16;

class Classifier {
 public:
  explicit Classifier(Function& f)
      : body_(f), args_(f.getArg(0)), state_(f.getArg(1)), lane_(f.getArg(2)) {}

  Kind kind(Value* v) {
    if (v == lane_) return Kind::PerLane;
    if (v == args_ || v == state_) return Kind::Uniform;
    if (isa<Constant>(v)) return Kind::Constant;
    auto* i = dyn_cast<Instruction>(v);
    if (i == nullptr) return Kind::Other;
    if (auto at = memo_.find(i); at != memo_.end()) return at->second;
    memo_[i] = Kind::Other;  // cycles (through phis) are never rematerialized
    Kind k = classify(*i);
    memo_[i] = k;
    return k;
  }

  unsigned cost(Instruction* i) {
    if (auto at = cost_.find(i); at != cost_.end()) return at->second;
    unsigned c = 1;
    for (Value* op : i->operands())
      if (auto* o = dyn_cast<Instruction>(op); o && kind(o) == Kind::PerLane) c += cost(o);
    cost_[i] = c;
    return c;
  }

 private:
  Kind classify(Instruction& i) {
    if (!movable(i)) return Kind::Other;
    Kind k = Kind::Constant;
    for (Value* op : i.operands()) {
      const Kind o = kind(op);
      if (o == Kind::Other) return Kind::Other;
      k = std::max(k, o);
    }
    return k == Kind::Constant ? Kind::Uniform : k;
  }

  bool movable(Instruction& i) {
    // An alloca becomes a slot: its address depends on the lane, and is computed per loop.
    if (isa<PHINode>(i) || isa<FreezeInst>(i) || isa<AllocaInst>(i) || i.isTerminator() ||
        i.getType()->isTokenTy())
      return false;
    if (auto* load = dyn_cast<LoadInst>(&i))
      return load->isSimple() && read_only(load->getPointerOperand());
    return !i.mayReadOrWriteMemory() && isSafeToSpeculativelyExecute(&i);
  }

  // Memory nothing writes during a dispatch: the BoundArgs struct, and anything reached from
  // the state (the body reads the state only through LaneLoopState::value and the lowered
  // queries; the step's own tables are not visible to it).
  bool read_only(Value* pointer) {
    // A buffer in the constant address space (memory_space.h).
    if (spaces_of(pointer, body_) == kReadOnly) return true;
    Value* base = getUnderlyingObject(pointer);
    if (base == args_) return true;
    for (int depth = 0; depth < 4; ++depth) {
      if (base == state_) return true;
      auto* load = dyn_cast<LoadInst>(base);
      if (load == nullptr) return false;
      base = getUnderlyingObject(load->getPointerOperand());
    }
    return false;
  }

  const Function& body_;
  Value* args_;
  Value* state_;
  Value* lane_;
  DenseMap<Instruction*, Kind> memo_;
  DenseMap<Instruction*, unsigned> cost_;
};

void collect(Instruction* i, Classifier& c, SmallPtrSetImpl<Instruction*>& into) {
  if (!into.insert(i).second) return;
  for (Value* op : i->operands())
    if (auto* o = dyn_cast<Instruction>(op); o && c.kind(o) != Kind::Constant) collect(o, c, into);
}

// `set` in the function's reverse post order, instructions in block order: definitions first.
std::vector<Instruction*> in_dominance_order(Function& f,
                                             const SmallPtrSetImpl<Instruction*>& set) {
  std::vector<Instruction*> out;
  for (BasicBlock* bb : ReversePostOrderTraversal<Function*>(&f))
    for (Instruction& i : *bb)
      if (set.contains(&i)) out.push_back(&i);
  return out;
}

}  // namespace

Rematerialized plan_rematerialization(Function& f, std::vector<Instruction*>& live) {
  Classifier c(f);
  SmallPtrSet<Instruction*, 32> uniform, per_lane;
  // Every uniform instruction goes to the entry, live across a sync point or not: LICM could
  // not hoist the loads among them (it cannot know that the memory behind the state is read only).
  for (Instruction& i : instructions(f))
    if (c.kind(&i) == Kind::Uniform) collect(&i, c, uniform);
  std::vector<Instruction*> demote;
  for (Instruction* v : live) {
    const Kind k = c.kind(v);
    if (k == Kind::Uniform) collect(v, c, uniform);
    else if (k == Kind::PerLane && c.cost(v) <= kMaxPerLaneCost) collect(v, c, per_lane);
    else demote.push_back(v);
  }
  // A per-lane value's uniform operands are computed once, in the entry.
  for (Instruction* i : SmallVector<Instruction*, 32>(per_lane.begin(), per_lane.end()))
    if (c.kind(i) == Kind::Uniform) {
      per_lane.erase(i);
      collect(i, c, uniform);
    }
  live = std::move(demote);
  return {in_dominance_order(f, uniform), in_dominance_order(f, per_lane)};
}

}  // namespace metalsim::lanes
