#pragma once
// The engine's queries, made direct values in the lane body before it becomes loops, so that
// nothing opaque stays in a lane loop:
//   current_lane_index()        -> lane
//   current_simd_lane()         -> lane % 32
//   function_constant(i)        -> state.function_constants[i] (nullptr past the table)
//   threadgroup_variable(site)  -> state.threadgroup_variables[j], j: the site's index in the
//                                  kernel's list, which the runtime allocates at each
//                                  threadgroup's start
#include <optional>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>

#include "simt/lanes/failure.h"

namespace metalsim::lanes {

// `f` has the lane body's parameters (args, state, lane). Appends each threadgroup variable
// site to `sites` once.
std::optional<Failure> lower_queries(llvm::Function& f, std::vector<llvm::GlobalVariable*>& sites,
                                     const std::string& fallback_site);

}  // namespace metalsim::lanes
