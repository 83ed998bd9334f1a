#include "simt/lanes/widen.h"

#include <algorithm>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Local.h>

#include "simt/lanes/element_major.h"
#include "simt/lanes/source_site.h"
#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// Whether `v` is live on entry to one of `resumes`: walks back from each use to the definition
// (a phi's use is at the end of its incoming block).
bool live_into(const Instruction& v, const SmallPtrSetImpl<const BasicBlock*>& resumes) {
  const BasicBlock* def = v.getParent();
  SmallPtrSet<const BasicBlock*, 32> seen;
  SmallVector<const BasicBlock*, 32> work;
  for (const Use& u : v.uses()) {
    const auto* user = cast<Instruction>(u.getUser());
    const BasicBlock* at = user->getParent();
    if (const auto* phi = dyn_cast<PHINode>(user)) at = phi->getIncomingBlock(u);
    else if (at == def) continue;  // used after its definition in the same block
    if (at != def && seen.insert(at).second) work.push_back(at);
  }
  while (!work.empty()) {
    const BasicBlock* b = work.pop_back_val();
    if (resumes.contains(b)) return true;
    for (const BasicBlock* p : predecessors(b))
      if (p != def && seen.insert(p).second) work.push_back(p);
  }
  return false;
}

// An address inside a lane's local array: a GEP, or GEPs, of an alloca.
bool address_in_local(const Value& v) {
  const Value* base = &v;
  while (const auto* gep = dyn_cast<GetElementPtrInst>(base)) base = gep->getPointerOperand();
  return base != &v && isa<AllocaInst>(base);
}

// Computes `gep` again before each of its users, so that its indices live across a sync point
// rather than the address: a slot holding a pointer into another slot would keep that one
// lane-major (element_major.h), and costs a load where an add does. Not for a phi's use (the
// phi's copies for one block must be one value): such a GEP is demoted as before.
bool recompute_at_uses(GetElementPtrInst& gep) {
  for (const User* u : gep.users())
    if (isa<PHINode>(u)) return false;
  for (Use& u : make_early_inc_range(gep.uses())) {
    Instruction* copy = gep.clone();
    copy->insertBefore(cast<Instruction>(u.getUser()));
    u.set(copy);
  }
  gep.eraseFromParent();
  return true;
}

}  // namespace

std::vector<Instruction*> values_live_across(Function& f, const std::vector<SyncPoint>& syncs,
                                             const SmallPtrSetImpl<Instruction*>& except) {
  SmallPtrSet<const BasicBlock*, 16> resumes;
  for (const SyncPoint& s : syncs) resumes.insert(s.resume);
  std::vector<Instruction*> live;
  for (Instruction& i : instructions(f))
    if (!isa<AllocaInst>(i) && !i.use_empty() && !except.contains(&i) && live_into(i, resumes))
      live.push_back(&i);
  return live;
}

std::optional<Failure> demote(std::vector<Instruction*> values, Function& f,
                              const std::vector<SyncPoint>& syncs,
                              const SmallPtrSetImpl<Instruction*>& except,
                              const std::string& fallback_site) {
  const auto alloca_point = f.getEntryBlock().getFirstInsertionPt();
  while (!values.empty()) {
    for (Instruction* i : values) {
      if (i->getType()->isTokenTy())
        return Failure{describe_site(*i, nullptr, fallback_site),
                       "a token value is live across a sync point"};
      if (auto* phi = dyn_cast<PHINode>(i)) DemotePHIToStack(phi, alloca_point);
      else if (auto* gep = dyn_cast<GetElementPtrInst>(i);
               gep != nullptr && address_in_local(*gep) && recompute_at_uses(*gep))
        continue;
      else DemoteRegToStack(*i, false, alloca_point);
    }
    values = values_live_across(f, syncs, except);
  }
  return std::nullopt;
}

std::optional<Failure> layout_frame(Function& f, const std::vector<SyncPoint>& syncs,
                                    FrameLayout& layout, const std::string& fallback_site) {
  const DataLayout& dl = f.getParent()->getDataLayout();
  const DominatorTree dt(f);
  const LoopInfo loops(dt);
  SmallPtrSet<const BasicBlock*, 16> sync_blocks;
  for (const SyncPoint& s : syncs) sync_blocks.insert(s.block);
  // In a loop without a sync point on it: the loop runs inside one region, lane by lane.
  const auto per_lane = [&](const Instruction& i) {
    const Loop* l = loops.getLoopFor(i.getParent());
    return l != nullptr &&
           llvm::none_of(l->blocks(), [&](const BasicBlock* b) { return sync_blocks.contains(b); });
  };
  std::vector<Instruction*> dead;
  for (Instruction& i : instructions(f)) {
    i.dropDbgRecords();
    if (isa<DbgInfoIntrinsic>(i) || i.isLifetimeStartOrEnd()) dead.push_back(&i);
  }
  for (Instruction* i : dead) i->eraseFromParent();

  for (Instruction& i : instructions(f)) {
    auto* a = dyn_cast<AllocaInst>(&i);
    if (a == nullptr) continue;
    const std::string site = describe_site(*a, nullptr, fallback_site);
    if (!a->isStaticAlloca())
      return Failure{site, "a local array whose size is known only at run time"};
    const uint64_t align = a->getAlign().value();
    if (align > abi::kFrameAlign)
      return Failure{site, "a local variable aligned to " + std::to_string(align) +
                               " bytes (at most " + std::to_string(abi::kFrameAlign) + ")"};
    const uint64_t bytes = a->getAllocationSize(dl)->getFixedValue();
    const uint64_t size = std::max<uint64_t>(alignTo(bytes, align), 1);
    std::string name =
        a->hasName() ? a->getName().str() : "slot" + std::to_string(layout.slots.size());
    layout.slots.push_back(
        {a, alignTo(size, align), align, 0, name, element_major_size(*a, dl, per_lane)});
  }
  // Most aligned first: every offset is then a multiple of its slot's alignment, and so is
  // offset * frame_lanes from the frame's (kFrameAlign-aligned) start.
  std::stable_sort(layout.slots.begin(), layout.slots.end(),
                   [](const FrameSlot& a, const FrameSlot& b) { return a.align > b.align; });
  uint64_t offset = 0;
  for (FrameSlot& s : layout.slots) {
    s.offset = offset;
    offset += s.size;
  }
  layout.bytes_per_lane = offset;
  return std::nullopt;
}

}  // namespace metalsim::lanes
