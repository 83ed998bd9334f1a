#pragma once
// What a fault inside a kernel hit, as a report: the classification both runners share (fibers,
// threadgroup_runner.cpp; lane loops, lane_loop_runner.cpp), so a fault reads the same in either
// mode. The runner fills in the kernel and the lane; this names the check, the .metal line, the
// memory and the message.
#include "simt/fault/fault.h"
#include "simt/report/report.h"

namespace metalsim::fiber {
class GuardedStack;
class StackPool;
}  // namespace metalsim::fiber

namespace metalsim::abi {
struct DispatchRequest;  // simt/abi/dispatch_request.h
}

namespace metalsim::engine {

class ThreadgroupArena;

// Where the faulting thread was running when the signal came.
struct FaultScene {
  const abi::DispatchRequest* request = nullptr;       // its buffers' guards, its watchdog
  const fiber::StackPool* stacks = nullptr;            // the worker's stacks: their guard pages
  const ThreadgroupArena* arena = nullptr;             // threadgroup memory: its guard pages
  const fiber::GuardedStack* running_stack = nullptr;  // the stack the kernel code ran on
};

// `r` arrives with its kernel and lane set; leaves with check, site, memory and message: a
// lane stack's guard (stack.overflow), a buffer's guard (bounds.device), a threadgroup region's
// guard (bounds.threadgroup), the watchdog (watchdog.timeout), else kernel.fault.
void describe_fault(const fault::FaultRecord& fault, const FaultScene& scene, report::Report& r);

}  // namespace metalsim::engine
