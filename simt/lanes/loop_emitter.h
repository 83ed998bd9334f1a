#pragma once
// Loop emission: the step function built from a prepared lane body (queries lowered, split at
// its sync points, values live across them demoted, its frame laid out):
//
//   void step(const BoundArgs& args, LaneLoopState& state, uint32_t cont, uint32_t first,
//             uint32_t count, const uint16_t* lanes)
//   entry:   loads of the state's frame and per-lane tables; the slots' array bases
//            switch (cont) -> region `cont`; lanes == nullptr ? contiguous loop : listed loop
//   loop:    i = 0 .. count-1; lane = first + i (or lanes[i]); slot addresses of `lane`
//            a clone of the region's blocks, in which
//              a sync call records (stop = k, kind, site, combine, in, out, arg)[lane], then
//              goes to the latch; a return records stop = done, then goes to the latch
//   latch:   ++i, marked llvm.loop.parallel_accesses (every memory access of the loop is in its
//            access group): lanes between two sync points of a race-free kernel are independent.
// The region of a loop's yield (across_lanes.h) runs, for contiguous lanes that have all done the
// same number of iterations, rounds first: per round one lane loop over a copy of one iteration
// without the loop's exits, as many rounds as every lane has left before its last; then its lane
// loops as above, in which a lane goes on with its own iterations at the yield rather than stop.
#include <optional>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "simt/lanes/across_lanes.h"
#include "simt/lanes/failure.h"
#include "simt/lanes/regions.h"
#include "simt/lanes/remat.h"
#include "simt/lanes/sync_points.h"
#include "simt/lanes/widen.h"

namespace metalsim::lanes {

struct PreparedBody {
  llvm::Function* body;  // the annotated original (left as it is: the registry's key)
  llvm::Function* work;  // its prepared clone; its blocks move into the step
  std::vector<SyncPoint> syncs;
  FrameLayout frame;
  std::vector<Region> regions;
  Rematerialized remat;                     // moved to the entry, or cloned into each loop header
  std::vector<AcrossLoop> across;           // loops run across lanes (across_lanes.h)
  std::vector<std::string> per_lane_loops;  // loops kept per lane by their region's order
};

// Builds the step and empties `prepared.work` (which the caller then erases). nullptr, with
// `failure` set, only on an internal error.
llvm::Function* emit_step(PreparedBody& prepared, std::optional<Failure>& failure);

}  // namespace metalsim::lanes
