#pragma once
// Widening: what a lane keeps across a sync point lives in per-lane storage. Values live across
// a sync point are demoted to allocas first (LLVM's DemoteRegToStack/DemotePHIToStack); then
// every alloca of the body becomes a slot of the per-lane frame the runtime provides, laid out
// as structure-of-arrays: slot s of lane l at frame + offset_s * frame_lanes + l * size_s, so
// that consecutive lanes touch consecutive addresses and the lane loops vectorize.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include "simt/lanes/failure.h"
#include "simt/lanes/sync_points.h"

namespace metalsim::lanes {

struct FrameSlot {
  llvm::AllocaInst* alloca;  // replaced by the slot's address when the step is built
  uint64_t size;             // bytes per lane (a multiple of its alignment)
  uint64_t align;
  uint64_t offset;  // per-lane offset: the slot's array starts at offset * frame_lanes
  std::string name;
  // Element-major (element_major.h): the size of its elements, which consecutive lanes hold
  // contiguously; 0: lane-major, each lane's whole slot contiguous.
  uint64_t element_bytes = 0;
  // From one lane's address of the slot (of its element 0) to the next lane's.
  uint64_t lane_stride() const { return element_bytes != 0 ? element_bytes : size; }
};

struct FrameLayout {
  std::vector<FrameSlot> slots;
  uint64_t bytes_per_lane = 0;
};

// The SSA values live across a sync point (live into a resume block), allocas and `except` aside.
std::vector<llvm::Instruction*> values_live_across(
    llvm::Function& f, const std::vector<SyncPoint>& syncs,
    const llvm::SmallPtrSetImpl<llvm::Instruction*>& except);

// Demotes `values` to allocas, and then what demotion leaves live across a sync point (a demoted
// phi becomes one load where the phi was), until nothing but `except` is. Fails on values that
// cannot live in memory (tokens).
std::optional<Failure> demote(std::vector<llvm::Instruction*> values, llvm::Function& f,
                              const std::vector<SyncPoint>& syncs,
                              const llvm::SmallPtrSetImpl<llvm::Instruction*>& except,
                              const std::string& fallback_site);

// Lays out every alloca of `f` (all static after inlining; a dynamic one fails) and removes what
// only makes sense for a real alloca: lifetime markers and debug variable records. An array whose
// accesses allow it, none of them in a loop without a sync point (`syncs`), is element-major
// (element_major.h).
std::optional<Failure> layout_frame(llvm::Function& f, const std::vector<SyncPoint>& syncs,
                                    FrameLayout& layout, const std::string& fallback_site);

}  // namespace metalsim::lanes
