#pragma once
// Lane loops: the ABI between a kernel compiled by the lane-loop pass (simt/lanes, docs/lanes.md)
// and the runtime that runs it (lane_loop_runner.h).
//
// The front emits, per kernel, a lane body: it binds the arguments and calls the kernel once for
// one lane, reading that lane's built-ins from the state. The pass turns each body into a step:
// the lanes [first, first + count) (or lanes[0 .. count)) each run from continuation `cont`
// (0: the kernel's start, k: just after sync point k) to their next sync point or their return,
// as one loop over lanes, and record where they stopped in the state's per-lane tables. The
// runtime resolves the sync points with the fiber engine's rules and calls the step again.
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <span>

#include "simt/abi/builtin.h"
#include "simt/abi/geometry.h"
#include "simt/abi/kernel.h"
#include "simt/engine/sync.h"
#include "simt/engine/threadgroup_memory.h"

namespace metalsim::engine {

// Changes whenever LaneLoopState or the registration below changes; a kernel compiled by a
// pass of another version is not run in lane loops.
inline constexpr uint32_t kLaneLoopAbiVersion = 3;
// Registration flag: the step's loops across lanes are race-free only when no two buffer
// bindings share memory (simt/lanes/region_order.h); the runtime checks before it runs the step.
inline constexpr uint32_t kLaneStepAssumesDistinctBuffers = 1;
// The step has no sync point (no barrier, collective or yield): every lane it runs returns, and
// the runner needs no record of where each stopped (LaneLoopRunner::run_threadgroup).
inline constexpr uint32_t kLaneStepHasNoSyncPoints = 2;
// stop[lane] of a lane that returned.
inline constexpr uint32_t kLaneDone = 0xFFFFFFFFu;
// kind[lane] of a lane stopped at a yield: not a sync point, but the latch of a loop the pass
// runs with the lanes inside its iterations (docs/lanes.md, "Loops across lanes"). The lane is
// ready again at once: the runtime calls the step for it at continuation stop[lane] before it
// resolves anything.
inline constexpr uint8_t kLaneYield = 0xFF;
// The per-lane frame is aligned to this; the pass aligns no slot beyond it.
inline constexpr uint32_t kLaneFrameAlign = 64;

static_assert(sizeof(std::source_location) == sizeof(const void*),
              "lane loops record a sync point's site as one pointer (libstdc++'s layout)");

// One threadgroup as the step sees it. Standard layout: the pass reads and writes it at the
// offsets of the fields (simt/lanes/state_abi.h), so keep the step's fields' types fixed.
struct LaneLoopState {
  // ---- read by lane bodies, through value()
  const abi::DispatchGeometry* dispatch = nullptr;
  Size3 position;  // threadgroup_position_in_grid
  Size3 size;      // threads_per_threadgroup (actual: partial at a grid's edge)
  uint32_t thread_count = 0;
  uint32_t simdgroup_count = 0;
  const uint16_t* local_x = nullptr;  // thread_position_in_threadgroup by lane, one table per
  const uint16_t* local_y = nullptr;  // component, so that the loads of consecutive lanes are
  const uint16_t* local_z = nullptr;  // consecutive and vectorize

  // ---- read by the step
  // Per-lane storage: slot s of lane l at frame + offset_s * frame_lanes + l * size_s.
  char* frame = nullptr;
  uint64_t frame_lanes = 0;                         // lanes the frame holds (>= thread_count)
  void* const* threadgroup_variables = nullptr;     // by the kernel's site index (registration)
  const void* const* function_constants = nullptr;  // by [[function_constant(N)]] index
  uint64_t function_constant_count = 0;
  // Always nullptr: a function constant past the table reads it (branch-free in the step).
  const void* unset_constant = nullptr;

  // ---- written by the step: where each lane stopped (by lane)
  uint32_t* stop = nullptr;  // the sync point (its continuation), or kLaneDone
  uint8_t* kind = nullptr;   // SyncKind
  std::source_location* site = nullptr;
  CombineFn* combine = nullptr;  // collectives only, as the ones below
  const void** in = nullptr;     // into the lane's own frame slots
  void** out = nullptr;
  uint64_t* arg = nullptr;

  // The value of built-in `b` for `lane`: builtin_value's table (geometry.h), as on fibers.
  // Inline and free of calls, so a lane loop that reads built-ins vectorizes.
  abi::BuiltinValue value(abi::Builtin b, uint32_t lane) const {
    const abi::ThreadgroupShape shape{dispatch, position, size, thread_count, simdgroup_count};
    return abi::builtin_value(b, lane, {local_x[lane], local_y[lane], local_z[lane]}, shape);
  }
};

// LaneBody (kernel.h) is what the front emits per kernel, marked
// [[clang::annotate("metalsim.lanes.body")]]: binds the arguments and runs the kernel for one
// lane. Never called in lane loops; the pass builds the step from it and the runtime finds the
// step by the body's address.
// What the pass builds from a body. `lanes`: nullptr for the lanes first .. first + count - 1.
using LaneStep = void (*)(const abi::BoundArgs& args, LaneLoopState& state, uint32_t cont,
                          uint32_t first, uint32_t count, const uint16_t* lanes);

// One body as the pass registered it.
struct LaneLoopKernel {
  const void* body = nullptr;
  LaneStep step = nullptr;  // nullptr: not transformable, `why` says why
  uint32_t frame_bytes_per_lane = 0;
  const char* why = nullptr;  // "file.metal:12: ..." when step is nullptr
  // Kernel-scope threadgroup variables, allocated at each threadgroup's start, in this order
  // (state.threadgroup_variables).
  std::span<ThreadgroupVariableSite* const> threadgroup_variables;
  bool assumes_distinct_buffers = false;  // kLaneStepAssumesDistinctBuffers
  bool has_no_sync_points = false;        // kLaneStepHasNoSyncPoints
};

// The registration of `body`, or nullptr with `why` set: what the pass said, or that the
// library was not compiled with the pass.
const LaneLoopKernel* find_lane_loop_kernel(abi::LaneBody body, const char** why);

}  // namespace metalsim::engine

// Called from a global constructor the pass adds to each module, once per lane body.
extern "C" void __metalsim_lanes_register(uint32_t abi_version, const void* body,
                                          metalsim::engine::LaneStep step,
                                          uint32_t frame_bytes_per_lane, const char* why,
                                          metalsim::engine::ThreadgroupVariableSite* const* sites,
                                          uint32_t site_count, uint32_t flags);
