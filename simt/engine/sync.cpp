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

namespace {
struct ConstantsOverride {
  const void* const* values = nullptr;
  size_t count = 0;
  bool active = false;
};
thread_local ConstantsOverride constants_override;
}  // namespace

FunctionConstantScope::FunctionConstantScope(const void* const* values, size_t count)
    : saved_values_(constants_override.values),
      saved_count_(constants_override.count),
      saved_active_(constants_override.active) {
  constants_override = {values, count, true};
}

FunctionConstantScope::~FunctionConstantScope() {
  constants_override = {saved_values_, saved_count_, saved_active_};
}

const void* function_constant(uint32_t index) {
  if (constants_override.active)
    return index < constants_override.count ? constants_override.values[index] : nullptr;
  return ThreadgroupRunner::current_or_throw().function_constant(index);
}

}  // namespace metalsim::engine
