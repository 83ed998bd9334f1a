#include "simt/instrument/loop_versions.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <algorithm>

namespace metalsim::instrument {

using namespace llvm;

namespace {

// The loop that the block holding `flag` (a hoisted test's result: loop_ranges.cpp puts it in
// the block that ends the preheader) enters, or nullptr.
Loop* loop_entered_from(PHINode& flag, LoopInfo& li) {
  BasicBlock* block = flag.getParent();
  BasicBlock* header = block->getSingleSuccessor();
  Loop* loop = header != nullptr ? li.getLoopFor(header) : nullptr;
  if (loop == nullptr || loop->getHeader() != header || loop->getLoopPreheader() != block)
    return nullptr;
  return loop;
}

// Whether every access inside `loop` is tested by `flag` alone.
bool all_tested_by(const Loop& loop, const PHINode& flag, const std::vector<Instruction*>& sites,
                   const std::vector<Value*>& flags) {
  for (size_t i = 0; i < sites.size(); ++i)
    if (loop.contains(sites[i]) && flags[i] != &flag) return false;
  return true;
}

// Blocks the copy handles: branches and switches between them, invokes whose unwinding leaves
// the loop; no exception pad inside (its token cannot pass through an exit's PHI).
bool copyable(const Loop& loop) {
  for (const BasicBlock* block : loop.blocks()) {
    if (block->isEHPad()) return false;
    const Instruction* end = block->getTerminator();
    if (!isa<BranchInst>(end) && !isa<SwitchInst>(end) && !isa<InvokeInst>(end)) return false;
  }
  return true;
}

// Every exit's PHIs take, from each copied exiting block, the copy of what they took from the
// original (values defined before the loop stay themselves).
void join_exits(const Loop& loop, ValueToValueMapTy& copies) {
  SmallVector<BasicBlock*, 8> exits;
  loop.getUniqueExitBlocks(exits);
  for (BasicBlock* exit : exits)
    for (PHINode& phi : exit->phis()) {
      const unsigned incoming = phi.getNumIncomingValues();
      for (unsigned i = 0; i < incoming; ++i) {
        BasicBlock* from = phi.getIncomingBlock(i);
        if (!loop.contains(from)) continue;
        Value* value = phi.getIncomingValue(i);
        auto copy = copies.find(value);
        Value* copied = copy != copies.end() ? static_cast<Value*>(copy->second) : value;
        phi.addIncoming(copied, cast<BasicBlock>(copies[from]));
      }
    }
}

// Copies `loop` and makes the block holding `flag` enter the copy where the flag holds.
bool copy_loop(Loop& loop, PHINode& flag, DominatorTree& dt, LoopInfo& li,
               ValueToValueMapTy& copies) {
  if (!copyable(loop)) return false;
  formLCSSARecursively(loop, dt, &li, nullptr);
  if (!loop.isRecursivelyLCSSAForm(dt, li)) return false;
  BasicBlock* decision = flag.getParent();
  // An empty preheader between the decision and the loop: the copy's is a copy of it.
  BasicBlock* preheader = SplitEdge(decision, loop.getHeader(), &dt, &li);
  SmallVector<BasicBlock*, 16> blocks;
  cloneLoopWithPreheader(preheader, decision, &loop, copies, ".unchecked", &li, &dt, blocks);
  remapInstructionsInBlocks(blocks, copies);
  join_exits(loop, copies);
  Instruction* old = decision->getTerminator();
  BranchInst::Create(cast<BasicBlock>(copies[preheader]), preheader, &flag, old->getIterator());
  old->eraseFromParent();
  return true;
}

}  // namespace

bool copy_loop_where(Function& f, PHINode& flag, ValueToValueMapTy& copies) {
  DominatorTree dt(f);
  LoopInfo li(dt);
  Loop* loop = loop_entered_from(flag, li);
  return loop != nullptr && copy_loop(*loop, flag, dt, li, copies);
}

std::vector<bool> copy_loops_without_tests(Function& f, const std::vector<Instruction*>& sites,
                                           const std::vector<Value*>& flags) {
  std::vector<bool> copied(sites.size(), false);
  SmallVector<PHINode*, 8> distinct;
  for (Value* flag : flags)
    if (auto* phi = dyn_cast_or_null<PHINode>(flag);
        phi != nullptr && std::find(distinct.begin(), distinct.end(), phi) == distinct.end())
      distinct.push_back(phi);
  for (PHINode* flag : distinct) {
    // Afresh for each loop: the last copy changed the blocks and dominators around it.
    DominatorTree dt(f);
    LoopInfo li(dt);
    Loop* loop = loop_entered_from(*flag, li);
    if (loop == nullptr || !all_tested_by(*loop, *flag, sites, flags)) continue;
    ValueToValueMapTy copies;
    if (!copy_loop(*loop, *flag, dt, li, copies)) continue;
    for (size_t i = 0; i < sites.size(); ++i) copied[i] = copied[i] || flags[i] == flag;
  }
  return copied;
}

}  // namespace metalsim::instrument
