// The per-lane queries the MSL headers call; each forwards to the runner of the calling
// worker. The sync points themselves are in threadgroup_runner.cpp, where the barrier's hot
// path can be inlined into them.
#include "simt/engine/sync.h"

#include "simt/abi/kernel.h"
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
uint32_t current_simd_lane() { return current_lane_index() % abi::kSimdWidth; }

void* threadgroup_variable(ThreadgroupVariableSite& site) {
  return ThreadgroupRunner::current_or_throw().threadgroup_variable(site);
}

namespace {
// The function constants argument_exists() evaluates a condition with, on this thread: a host
// thread outside any kernel, so function_constant() looks here only when no runner is current.
thread_local std::span<const void* const> host_constants;
thread_local bool host_constants_set = false;
}  // namespace

const void* function_constant(uint32_t index) {
  if (ThreadgroupRunner* runner = ThreadgroupRunner::current()) [[likely]]
    return runner->function_constant(index);
  if (host_constants_set) return index < host_constants.size() ? host_constants[index] : nullptr;
  return ThreadgroupRunner::current_or_throw().function_constant(index);  // throws: no kernel
}

}  // namespace metalsim::engine

// Declared in the kernel ABI (simt/abi/kernel.h): the host asks it of each argument.
namespace metalsim::abi {

bool argument_exists(const ArgInfo& arg, std::span<const void* const> constants) {
  if (arg.active == nullptr) return true;
  engine::host_constants = constants;
  engine::host_constants_set = true;
  struct Reset {
    ~Reset() { engine::host_constants_set = false; }
  } reset;
  return arg.active();
}

}  // namespace metalsim::abi
