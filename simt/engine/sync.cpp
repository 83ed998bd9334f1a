// The per-lane queries the MSL headers call; each forwards to the runner of the calling
// worker. The sync points themselves are in threadgroup_runner.cpp, where the barrier's hot
// path can be inlined into them.
#include "simt/engine/sync.h"

#include "simt/engine/threadgroup_memory.h"
#include "simt/engine/threadgroup_runner.h"

namespace metalsim::engine {

const CollectiveMember* CollectiveCall::find(uint32_t lane) const {
  if ((active_mask & (1u << lane)) == 0) return nullptr;
  for (uint32_t i = 0; i < count; ++i)
    if (members[i].simd_lane == lane) return &members[i];
  return nullptr;
}

uint32_t current_lane_index() { return ThreadgroupRunner::current_or_throw().current_lane(); }
uint32_t current_simd_lane() { return current_lane_index() % kSimdWidth; }

void* threadgroup_variable(ThreadgroupVariableSite& site) {
  return ThreadgroupRunner::current_or_throw().threadgroup_variable(site);
}

const void* function_constant(uint32_t index) {
  return ThreadgroupRunner::current_or_throw().function_constant(index);
}

}  // namespace metalsim::engine
