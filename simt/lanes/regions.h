#pragma once
// Regions: continuation k (0: the kernel's start, k: after sync point k) runs the blocks reachable
// from its start without passing a sync point. Each region becomes one lane loop in the step;
// a block reachable from several continuations is cloned into each of their loops.
#include <cstdint>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>

#include "simt/lanes/sync_points.h"

namespace metalsim::lanes {

struct Region {
  uint32_t cont;                          // 0 or a sync point's id
  llvm::BasicBlock* start;                // the entry block, or the sync point's resume block
  std::vector<llvm::BasicBlock*> blocks;  // in the function's block order, start first
  std::vector<uint32_t> exits;            // the sync points a lane of this region can stop at
  bool returns = false;                   // a lane can return in this region
  unsigned instructions = 0;              // in `blocks`, as the body was split
};

// Computed on the body once it is split at its sync points (before the step is built).
std::vector<Region> compute_regions(llvm::Function& f, const std::vector<SyncPoint>& syncs);

}  // namespace metalsim::lanes
