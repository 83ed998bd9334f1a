#include "simt/lanes/lane_guards.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace metalsim::lanes {

using namespace llvm;

namespace {

// A block that only records that the lane returned (the stop table's store) and ends its step.
bool returns_only(BasicBlock* bb, BasicBlock* latch) {
  auto* br = dyn_cast<BranchInst>(bb->getTerminator());
  if (br == nullptr || br->isConditional() || br->getSuccessor(0) != latch) return false;
  for (Instruction& inst : *bb)
    if (!isa<GetElementPtrInst>(inst) && !isa<StoreInst>(inst) && !isa<CastInst>(inst) &&
        !isa<DbgInfoIntrinsic>(inst) && !inst.isTerminator())
      return false;
  return true;
}

}  // namespace

std::optional<LaneGuard> find_lane_guard(const EmittedLoop& loop) {
  LaneGuard g;
  SmallPtrSet<BasicBlock*, 32> body(loop.body.begin(), loop.body.end());
  for (BasicBlock* bb = loop.header; bb != nullptr;) {
    g.chain.push_back(bb);
    for (Instruction& inst : *bb)  // the slice's reads must see what the lane would see
      if (inst.mayWriteToMemory() || (isa<CallBase>(inst) && !isa<DbgInfoIntrinsic>(inst)))
        return std::nullopt;
    auto* br = dyn_cast<BranchInst>(bb->getTerminator());
    if (br == nullptr) return std::nullopt;
    if (br->isConditional()) {
      g.branch = br;
      break;
    }
    BasicBlock* next = br->getSuccessor(0);
    if (!body.contains(next) || g.chain.size() > 16) return std::nullopt;
    bb = next;
  }
  if (g.branch == nullptr) return std::nullopt;
  // A guard: one side returns at once (`if (gid >= n) return;`, or the end of `if (gid < n)
  // {...}`), the other does the work. A branch inside the work (the checked variant's shadow
  // tests) is not one.
  const bool t_returns = returns_only(g.branch->getSuccessor(0), loop.latch);
  const bool f_returns = returns_only(g.branch->getSuccessor(1), loop.latch);
  if (t_returns == f_returns) return std::nullopt;
  g.work = t_returns ? 1 : 0;
  return g;
}

std::vector<Instruction*> condition_slice(const LaneGuard& g, const EmittedLoop& loop) {
  SmallPtrSet<BasicBlock*, 16> chain(g.chain.begin(), g.chain.end());
  SmallPtrSet<BasicBlock*, 32> body(loop.body.begin(), loop.body.end());
  SmallPtrSet<Instruction*, 32> slice;
  std::vector<Instruction*> work;
  if (auto* c = dyn_cast<Instruction>(g.branch->getCondition())) work.push_back(c);
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    if (inst == loop.counter || slice.contains(inst)) continue;
    if (!chain.contains(inst->getParent())) {
      if (body.contains(inst->getParent())) return {};  // defined in the loop, off the chain
      continue;                                         // defined before the loop
    }
    auto* load = dyn_cast<LoadInst>(inst);
    if (isa<PHINode>(inst) || isa<CallBase>(inst) || (load != nullptr && !load->isSimple()) ||
        inst->mayWriteToMemory() || inst->mayThrow() || inst->isEHPad())
      return {};
    slice.insert(inst);
    for (Value* op : inst->operands())
      if (auto* def = dyn_cast<Instruction>(op)) work.push_back(def);
  }
  std::vector<Instruction*> ordered;
  for (BasicBlock* bb : g.chain)
    for (Instruction& inst : *bb)
      if (slice.contains(&inst)) ordered.push_back(&inst);
  return ordered;
}

GuardScan emit_guard_scan(Function& step, BasicBlock* from, const LaneGuard& g,
                          const std::vector<Instruction*>& slice, const EmittedLoop& loop,
                          const std::string& name) {
  LLVMContext& ctx = step.getContext();
  BasicBlock* header = BasicBlock::Create(ctx, name + ".scan", &step);
  BasicBlock* exit = BasicBlock::Create(ctx, name + ".scanned", &step);
  IRBuilder<> b(header);
  PHINode* i = b.CreatePHI(b.getInt32Ty(), 2, "i");
  PHINode* so_far = b.CreatePHI(b.getInt1Ty(), 2, "all.so_far");
  i->addIncoming(b.getInt32(0), from);
  so_far->addIncoming(b.getTrue(), from);
  ValueToValueMapTy map;
  map[loop.counter] = i;
  for (Instruction* inst : slice) {
    Instruction* c = inst->clone();
    c->setName(inst->getName());
    c->setMetadata(LLVMContext::MD_access_group, nullptr);
    b.Insert(c);
    RemapInstruction(c, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
    map[inst] = c;
  }
  Value* cond = map[g.branch->getCondition()];  // in the slice: a uniform one has none
  Value* to_work = g.work == 0 ? cond : b.CreateNot(cond);
  Value* next_all = b.CreateAnd(so_far, to_work, "all.next");
  Value* next = b.CreateAdd(i, b.getInt32(1), "i.next", true, true);
  i->addIncoming(next, header);
  so_far->addIncoming(next_all, header);
  b.CreateCondBr(b.CreateICmpULT(next, step.getArg(4)), header, exit);
  return {header, exit, next_all};
}

void drop_guard(const EmittedLoop& loop) {
  std::optional<LaneGuard> g = find_lane_guard(loop);
  if (!g) return;  // the same templates as the scanned loop: never expected
  BranchInst* br = g->branch;
  BasicBlock* other = br->getSuccessor(1 - g->work);
  other->removePredecessor(br->getParent());
  BranchInst::Create(br->getSuccessor(g->work), br);
  br->eraseFromParent();
}

}  // namespace metalsim::lanes
