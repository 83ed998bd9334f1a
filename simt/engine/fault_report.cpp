#include "simt/engine/fault_report.h"

#include <string>

#include "simt/engine/dispatch.h"
#include "simt/engine/threadgroup_arena.h"
#include "simt/fiber/guarded_stack.h"

namespace metalsim::engine {
namespace {

// A frame larger than the guard page can step over it: a fault below the running stack (within
// 64 MiB) is that stack's overflow too.
bool below_stack(const fiber::GuardedStack* stack, const char* address) {
  if (stack == nullptr) return false;
  const char* bottom = static_cast<const char*>(stack->bottom());
  return address < bottom && address >= bottom - (64 << 20);
}

std::string stack_size(const fiber::StackPool* stacks) {
  return std::to_string(stacks != nullptr ? stacks->stack_bytes() / 1024 : 0) + " KiB";
}

}  // namespace

void describe_fault(const FaultRecord& fault, const FaultScene& scene, check::Report& r) {
  r.check = check::CheckId::kernel_fault;
  r.site = symbolize(fault.pc);
  const DispatchRequest& req = *scene.request;
  if (fault.timeout) {
    r.check = check::CheckId::watchdog_timeout;
    r.message = "the dispatch ran past its limit of " +
                std::to_string(req.options.watchdog_seconds) + " s; this thread was running";
    return;
  }
  auto* address = static_cast<const char*>(fault.address);
  if (scene.stacks != nullptr && scene.stacks->guard_owner(address) != nullptr) {
    r.check = check::CheckId::stack_overflow;
    r.message = "the thread overflowed its " + stack_size(scene.stacks) +
                " stack (set METALSIM_STACK_SIZE for more)";
    return;
  }
  for (const MemoryRange& m : req.memory) {
    if (address >= m.guard_begin && address < m.guard_end) {
      r.check = check::CheckId::bounds_device;
      r.memory = m.name;
      r.has_offset = true;
      r.offset = uint64_t(address - m.origin);
      r.message = std::string(fault.write ? "write" : "access") + " outside the bound range of " +
                  std::to_string(m.end - m.origin) + " bytes";
      return;
    }
  }
  std::string region;
  uint64_t offset = 0;
  if (scene.arena != nullptr && scene.arena->describe_guard(address, region, offset)) {
    r.check = check::CheckId::bounds_threadgroup;
    r.memory = region;
    r.has_offset = true;
    r.offset = offset;
    r.message = "access past the end of " + region;
    return;
  }
  if (below_stack(scene.running_stack, address)) {  // after buffers and regions: they may lie below
    r.check = check::CheckId::stack_overflow;
    r.message = "the thread overflowed its " + stack_size(scene.stacks) +
                " stack by more than its guard page (set METALSIM_STACK_SIZE for more)";
    return;
  }
  r.message = "memory fault at address " + std::to_string(uintptr_t(address)) +
              ", outside every bound buffer";
}

}  // namespace metalsim::engine
