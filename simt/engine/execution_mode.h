#pragma once
// Which runner a dispatch takes: fibers (ThreadgroupRunner) or lane loops (LaneLoopRunner), from
// ExecutionOptions::mode (docs/lanes.md, "Modes"):
//  - fibers: always fibers;
//  - loops: lane loops, or a mode.unavailable report naming why the kernel cannot;
//  - auto: lane loops when the kernel has a step, the schedule is in-order and neither init nor
//    race is on (they need a fiber per lane: below), else fibers; fibers too when the step's loops
//    across lanes assume distinct buffers and a written buffer is bound twice (`loops` refuses).
// Initcheck's locating pass (single-stepping each lane's accesses) always runs on fibers.
#include <string>

#include "simt/abi/dispatch_request.h"
#include "simt/abi/kernel.h"
#include "simt/engine/lane_loops.h"

namespace metalsim::engine {

struct ModeDecision {
  const LaneLoopKernel* loops = nullptr;  // run in lane loops; nullptr: on fibers
  std::string refused;  // loops were asked for and the kernel cannot: why (mode.unavailable)
};
ModeDecision decide_execution_mode(const abi::DispatchRequest& request);

// "buffer(2) 'out', which it writes, and buffer(0) 'x' share memory" when a buffer the kernel may
// write is bound where another of its buffer arguments is; "" when none is.
std::string written_buffer_bound_twice(const abi::DispatchRequest& request);

// Why `kernel` cannot run in lane loops, naming the .metal file and line where the pass gave one;
// "" when it can.
std::string lane_loops_unavailable(const abi::KernelInfo& kernel);

// Why `auto` runs a kernel that has lane loops on fibers under `options`; "" when it does not.
std::string fibers_needed_by(const ExecutionOptions& options);

// Whether a dispatch under `options` runs on fibers whatever its kernel: --mode fibers, or auto
// with a check or schedule that needs them. False: lane loops, where the kernel has them.
bool runs_on_fibers(const ExecutionOptions& options);

}  // namespace metalsim::engine
