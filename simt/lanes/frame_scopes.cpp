#include "simt/lanes/frame_scopes.h"

#include <string>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallBitVector.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Operator.h>

#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// What a pointer may point into: some of the frame's slots, memory that is not the frame, or
// either (unknown). `None` is what a path that only comes back to itself adds.
struct Target {
  enum Kind { None, NotFrame, Slots, Unknown } kind = None;
  SmallBitVector slots;

  static Target not_frame() { return {NotFrame, {}}; }
  static Target unknown() { return {Unknown, {}}; }
};

Target join(Target a, const Target& b) {
  if (a.kind == Target::None) return b;
  if (b.kind == Target::None) return a;
  if (a.kind == Target::Unknown || b.kind == Target::Unknown) return Target::unknown();
  if (a.kind != b.kind) return Target::unknown();  // the frame or not, by the path taken
  if (a.kind == Target::Slots) a.slots |= b.slots;
  return a;
}

class Classifier {
 public:
  Classifier(Function& step, const Value* frame, const std::vector<Value*>& slot_arrays)
      : step_(step),
        frame_(frame),
        slots_(unsigned(slot_arrays.size())),
        may_hold_frame_pointer_(slots_) {
    for (unsigned s = 0; s < slot_arrays.size(); ++s) slot_of_[slot_arrays[s]] = s;
  }

  Target classify(const Value* pointer) {
    SmallPtrSet<const Value*, 16> visited;
    const Target t = walk(pointer, visited);
    return t.kind == Target::None ? Target::unknown() : t;
  }

  // Finds the slots a pointer into the frame may be stored in: those a store of such a pointer
  // (or of a value that may be one) may reach. A pointer loaded from any other slot points
  // outside the frame (a demoted `device` or `threadgroup` pointer, the usual case). To a fixed
  // point: each slot found may make more loaded pointers unknown.
  void find_slots_holding_frame_pointers() {
    for (bool changed = true; changed;) {
      changed = false;
      for (Instruction& i : instructions(step_)) changed |= note_frame_pointer_store(i);
    }
  }

 private:
  Target walk(const Value* v, SmallPtrSetImpl<const Value*>& visited) {
    if (auto it = slot_of_.find(v); it != slot_of_.end()) {
      Target t{Target::Slots, SmallBitVector(slots_)};
      t.slots.set(it->second);
      return t;
    }
    if (v == frame_) return {Target::Slots, SmallBitVector(slots_, true)};
    if (!visited.insert(v).second) return {};
    if (auto* gep = dyn_cast<GEPOperator>(v)) return walk(gep->getPointerOperand(), visited);
    if (auto* cast = dyn_cast<Operator>(v);
        cast != nullptr && (cast->getOpcode() == Instruction::BitCast ||
                            cast->getOpcode() == Instruction::AddrSpaceCast))
      return walk(cast->getOperand(0), visited);
    if (auto* phi = dyn_cast<PHINode>(v)) {
      Target t;
      for (const Value* in : phi->incoming_values()) t = join(t, walk(in, visited));
      return t;
    }
    if (auto* select = dyn_cast<SelectInst>(v))
      return join(walk(select->getTrueValue(), visited), walk(select->getFalseValue(), visited));
    if (isa<Argument>(v) || isa<GlobalValue>(v) || isa<AllocaInst>(v) ||
        isa<ConstantPointerNull>(v) || isa<UndefValue>(v))
      return Target::not_frame();
    if (auto* load = dyn_cast<LoadInst>(v)) return loaded_pointer(*load);
    return Target::unknown();
  }

  // A pointer the step loads from the bound arguments (a buffer, a threadgroup region), from the
  // state (its tables), or from the state's tables of threadgroup variables and function
  // constants: the runtime's memory, never the frame (whose own load is `frame_`; not the tables
  // of collectives' inputs and outputs either, which hold pointers into the frame). And one
  // loaded from slots no pointer into the frame is stored in.
  Target loaded_pointer(const LoadInst& load) {
    const Value* base = load.getPointerOperand()->stripInBoundsOffsets();
    if (base == step_.getArg(0) || base == step_.getArg(1)) return Target::not_frame();
    if (auto* table = dyn_cast<LoadInst>(base); table != nullptr && table != frame_) {
      APInt offset(64, 0);
      const Value* state = table->getPointerOperand()->stripAndAccumulateConstantOffsets(
          step_.getDataLayout(), offset, /*AllowNonInbounds=*/false);
      if (state == step_.getArg(1) &&
          (offset == abi::kThreadgroupVariables || offset == abi::kFunctionConstants))
        return Target::not_frame();
    }
    const Target from = classify(load.getPointerOperand());
    if (from.kind == Target::Slots && !from.slots.anyCommon(may_hold_frame_pointer_))
      return Target::not_frame();
    return Target::unknown();
  }

  // Whether `i` may store a pointer into the frame (or anything not known to be outside it) into
  // slots not yet marked; marks them.
  bool note_frame_pointer_store(const Instruction& i) {
    const Value* destination = nullptr;
    bool may_store_frame_pointer = false;
    if (auto* store = dyn_cast<StoreInst>(&i)) {
      destination = store->getPointerOperand();
      may_store_frame_pointer = may_be_frame_pointer(store->getValueOperand());
    } else if (auto* transfer = dyn_cast<MemTransferInst>(&i)) {
      destination = transfer->getRawDest();  // copies bytes that may be pointers
      may_store_frame_pointer = true;
    } else if (auto* rmw = dyn_cast<AtomicRMWInst>(&i)) {
      destination = rmw->getPointerOperand();
      may_store_frame_pointer = may_be_frame_pointer(rmw->getValOperand());
    } else if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&i)) {
      destination = cmpxchg->getPointerOperand();
      may_store_frame_pointer = may_be_frame_pointer(cmpxchg->getNewValOperand());
    }
    if (auto* call = dyn_cast<CallBase>(&i); call != nullptr && !isa<MemIntrinsic>(call))
      return note_call_writes(*call);
    if (!may_store_frame_pointer) return false;
    return mark(classify(destination));
  }

  // A call that may write memory may write anything through the pointers it is given.
  bool note_call_writes(const CallBase& call) {
    if (call.onlyReadsMemory()) return false;
    bool marked = false;
    for (const Value* argument : call.args())
      if (argument->getType()->isPtrOrPtrVectorTy()) marked |= mark(classify(argument));
    return marked;
  }

  // Marks the slots `into` may reach as holding pointers into the frame; whether any was new.
  bool mark(const Target& into) {
    SmallBitVector reached = into.kind == Target::Slots     ? into.slots
                             : into.kind == Target::Unknown ? SmallBitVector(slots_, true)
                                                            : SmallBitVector(slots_);
    reached.reset(may_hold_frame_pointer_);
    if (reached.none()) return false;
    may_hold_frame_pointer_ |= reached;
    return true;
  }

  // Integers and floats are not pointers: one turned back into a pointer (`inttoptr`) is unknown
  // wherever it is used. Aggregates may hold pointers.
  bool may_be_frame_pointer(const Value* v) {
    Type* type = v->getType();
    if (type->isPtrOrPtrVectorTy()) return classify(v).kind != Target::NotFrame;
    return type->isAggregateType();
  }

  Function& step_;
  const Value* frame_;
  unsigned slots_;
  DenseMap<const Value*, unsigned> slot_of_;
  SmallBitVector may_hold_frame_pointer_;  // by slot
};

// The pointers an instruction accesses memory through (none for other instructions).
SmallVector<const Value*, 2> accessed_pointers(const Instruction& i) {
  if (auto* load = dyn_cast<LoadInst>(&i)) return {load->getPointerOperand()};
  if (auto* store = dyn_cast<StoreInst>(&i)) return {store->getPointerOperand()};
  if (auto* transfer = dyn_cast<MemTransferInst>(&i))
    return {transfer->getRawDest(), transfer->getRawSource()};
  if (auto* set = dyn_cast<MemSetInst>(&i)) return {set->getRawDest()};
  return {};
}

// Adds `scopes` to the instruction's list of `kind`, keeping the scopes inlining gave it (other
// domains: `restrict` and noalias arguments of the kernel's inlined functions).
void add_scopes(Instruction& i, unsigned kind, MDNode* scopes) {
  i.setMetadata(kind, MDNode::concatenate(i.getMetadata(kind), scopes));
}

}  // namespace

void scope_frame_accesses(Function& step, const Value* frame,
                          const std::vector<Value*>& slot_arrays) {
  if (frame == nullptr || slot_arrays.empty()) return;
  LLVMContext& ctx = step.getContext();
  MDBuilder md(ctx);
  MDNode* domain = md.createAnonymousAliasScopeDomain("metalsim.lanes.frame");
  std::vector<Metadata*> scopes;
  for (size_t s = 0; s < slot_arrays.size(); ++s)
    scopes.push_back(md.createAnonymousAliasScope(domain, "slot" + std::to_string(s)));
  MDNode* every_slot = MDNode::get(ctx, scopes);
  Classifier classifier(step, frame, slot_arrays);
  classifier.find_slots_holding_frame_pointers();
  for (Instruction& i : instructions(step)) {
    SmallVector<const Value*, 2> pointers = accessed_pointers(i);
    if (pointers.empty()) continue;
    Target t;
    for (const Value* p : pointers) t = join(t, classifier.classify(p));
    if (t.kind == Target::Unknown) continue;
    if (t.kind == Target::NotFrame) {
      add_scopes(i, LLVMContext::MD_noalias, every_slot);
      continue;
    }
    SmallVector<Metadata*, 16> in, out;
    for (unsigned s = 0; s < scopes.size(); ++s) (t.slots.test(s) ? in : out).push_back(scopes[s]);
    add_scopes(i, LLVMContext::MD_alias_scope, MDNode::get(ctx, in));
    if (!out.empty()) add_scopes(i, LLVMContext::MD_noalias, MDNode::get(ctx, out));
  }
}

}  // namespace metalsim::lanes
