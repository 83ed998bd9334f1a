#pragma once
// The one-dimensional copy of a contiguous lane loop (docs/lanes.md, "One-dimensional threadgroups
// and guards"): in a threadgroup whose y and z sizes are 1, lane l is at (l, 0, 0), so the copy
// computes thread_position_in_threadgroup from the lane instead of reading the state's tables,
// and the addresses derived from it are affine in the lane: vector loads and stores instead of
// gathers and scatters.
#include <vector>

#include <llvm/IR/BasicBlock.h>

namespace metalsim::lanes {

// Replaces, in `blocks` (one loop's clones and header), every read of the position tables by
// the position computed from its index. Returns how many reads it replaced (0: the loop reads
// no position, and needs no one-dimensional copy).
unsigned specialise_one_d(const std::vector<llvm::BasicBlock*>& blocks);

}  // namespace metalsim::lanes
