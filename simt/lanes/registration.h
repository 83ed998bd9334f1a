#pragma once
// Registration: a global constructor added to the module calls
//   __metalsim_lanes_register(abi, body, step, frame_bytes_per_lane, why, sites, site_count,
//                             flags)
// for each lane body (simt/engine/lane_loops.h), step = nullptr with a one-line reason when the
// body could not be transformed. The runtime finds a kernel's step by its body's address.
#include <cstdint>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

namespace metalsim::lanes {

struct Registration {
  llvm::Function* body;
  llvm::Function* step;  // nullptr: not transformable
  uint64_t frame_bytes_per_lane = 0;
  std::string why;  // empty when transformed
  std::vector<llvm::GlobalVariable*> threadgroup_variables;
  // A loop across lanes whose region is race-free only with distinct buffers (region_order.h):
  // the runtime runs the dispatch on fibers when a buffer is bound twice.
  bool assumes_distinct_buffers = false;
  // No sync point in the kernel (nor a yield): the runtime skips the stops' bookkeeping.
  bool has_no_sync_points = false;
};

void emit_registrations(llvm::Module& m, const std::vector<Registration>& registrations);

}  // namespace metalsim::lanes
