#pragma once
// Uniform guards (docs/lanes.md, "One-dimensional threadgroups and guards"):
// most kernels start with a guard, `if (gid >= count) return;`, and a lane loop whose body holds
// a branch on a per-lane condition is not vectorized: its stores become conditional, which x86
// vector units can only do element by element (no masked store of a half before AVX-512). Yet
// in every threadgroup but the grid's last, every lane takes the guard the same way. So the
// one-dimensional loop is versioned: a first loop computes the guard's condition for every lane
// (it only reads: the slice of the condition), and when every lane goes to the guarded work, a
// copy of the loop without the branch runs; otherwise the loop with it.

#include <optional>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

namespace metalsim::lanes {

// What the loop emitter made of one lane loop: its header (with the counter `i`), latch and the
// region's clones.
struct EmittedLoop {
  llvm::BasicBlock* header = nullptr;
  llvm::BasicBlock* latch = nullptr;
  llvm::PHINode* counter = nullptr;
  std::vector<llvm::BasicBlock*> body;
};

// The first conditional branch of a lane's path, from the header along unconditional branches,
// when it is a guard: one side only records that the lane returned.
struct LaneGuard {
  llvm::BranchInst* branch = nullptr;
  unsigned work = 0;                     // the successor every lane must take for the copy
  std::vector<llvm::BasicBlock*> chain;  // header .. the branch's block
};
std::optional<LaneGuard> find_lane_guard(const EmittedLoop& loop);

// The instructions of the chain that the guard's condition depends on, in program order; empty
// when it cannot be recomputed ahead of the lanes (a phi other than the counter, a call) or
// depends on no lane (a uniform condition, which needs no scan).
std::vector<llvm::Instruction*> condition_slice(const LaneGuard& g, const EmittedLoop& loop);

// The loop that decides whether every lane takes the guard's work: the slice recomputed per lane
// (over the step's `count` lanes) and and-reduced.
struct GuardScan {
  llvm::BasicBlock* header;  // entered from `from`
  llvm::BasicBlock* exit;    // no terminator yet
  llvm::Value* all;          // the decision, available in `exit`
};
GuardScan emit_guard_scan(llvm::Function& step, llvm::BasicBlock* from, const LaneGuard& g,
                          const std::vector<llvm::Instruction*>& slice, const EmittedLoop& loop,
                          const std::string& name);

// Makes `loop` (a fresh copy of the scanned loop) the copy in which every lane takes the work.
void drop_guard(const EmittedLoop& loop);

}  // namespace metalsim::lanes
