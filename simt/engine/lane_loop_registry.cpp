// The lane-loop registry: what the pass registered for each lane body (lane_loops.h).
#include <deque>
#include <mutex>

#include "simt/engine/lane_loops.h"

namespace metalsim::engine {
namespace {

struct Registry {
  std::mutex mutex;                    // dlopen'ed kernel libraries register from any thread
  std::deque<LaneLoopKernel> kernels;  // a deque: found entries stay put as more register
};

// Function-local so registration from other translation units' static initialisers is safe.
Registry& registry() {
  static Registry r;
  return r;
}

constexpr const char* kNotCompiled = "the kernel library was not compiled with the lane-loop pass";
constexpr const char* kOtherAbi =
    "the kernel library was compiled by a lane-loop pass of another version: rebuild it";

}  // namespace

const LaneLoopKernel* find_lane_loop_kernel(abi::LaneBody lane_body, const char** why) {
  // The pass registers the body as the address it is (a `ptr` in the IR).
  const void* body = reinterpret_cast<const void*>(lane_body);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const LaneLoopKernel& k : r.kernels)
    if (k.body == body) {
      if (k.step == nullptr && why != nullptr) *why = k.why;
      return k.step != nullptr ? &k : nullptr;
    }
  if (why != nullptr) *why = kNotCompiled;
  return nullptr;
}

}  // namespace metalsim::engine

extern "C" void __metalsim_lanes_register(uint32_t abi_version, const void* body,
                                          metalsim::engine::LaneStep step,
                                          uint32_t frame_bytes_per_lane, const char* why,
                                          metalsim::engine::ThreadgroupVariableSite* const* sites,
                                          uint32_t site_count, uint32_t flags) {
  using namespace metalsim::engine;
  LaneLoopKernel k;
  k.body = body;
  if (abi_version != kLaneLoopAbiVersion) {
    k.why = kOtherAbi;
  } else {
    k.step = step;
    k.frame_bytes_per_lane = frame_bytes_per_lane;
    k.why = step != nullptr ? nullptr : why;
    k.threadgroup_variables = {sites, site_count};
    k.assumes_distinct_buffers = (flags & kLaneStepAssumesDistinctBuffers) != 0;
    k.has_no_sync_points = (flags & kLaneStepHasNoSyncPoints) != 0;
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.kernels.push_back(k);
}
