#pragma once
// Sync points: each call to a sync function of the engine gets a block of its own,
//   sync.k:   call @engine::...(...) ; br resume.k
//   resume.k: (the rest of the original block: continuation k starts here)
// so that a lane loop can stop a lane at sync.k and a later one resume it at resume.k.
#include <cstdint>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include "simt/lanes/engine_calls.h"

namespace metalsim::lanes {

struct SyncPoint {
  uint32_t id;           // 1..n: the continuation that resumes after it
  EngineCall kind;       // ThreadgroupBarrier, SimdgroupBarrier or SimdCollective
  llvm::CallInst* call;  // alone in `block` with its branch
  llvm::BasicBlock* block;
  llvm::BasicBlock* resume;  // single predecessor: `block`
  std::string site;          // "file:line" (the source_location argument, else debug info)
};

// Splits `f` at every sync call (engine invokes must already be calls). Ids in block order.
std::vector<SyncPoint> split_sync_points(llvm::Function& f);

// The call's std::source_location argument (its last).
llvm::Value* site_argument(const llvm::CallInst& call);

}  // namespace metalsim::lanes
