#include "simt/engine/fault_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "simt/abi/dispatch_request.h"
#include "simt/checks/texture_fault.h"
#include "simt/engine/threadgroup_arena.h"
#include "simt/fiber/guarded_stack.h"
#include "simt/report/symbolize.h"

namespace metalsim::engine {
namespace {

// A frame larger than the guard page can step over it: a fault below the running stack (within
// 64 MiB) is that stack's overflow too.
bool below_stack(const fiber::GuardedStack* stack, const char* address) {
  if (stack == nullptr) return false;
  const char* bottom = static_cast<const char*>(stack->bottom());
  return address < bottom && address >= bottom - (64 << 20);
}

const char* access_word(const fault::FaultRecord& fault) {
  if (fault.write) return "write";
  return fault.detected ? "read" : "access";
}

// A bound buffer's guard pages, the bytes before its bound offset or past its end (the shadow
// of byte-precise bounds), or its mapping around its contents: bounds.device.
bool describe_device(const fault::FaultRecord& fault, const abi::DispatchRequest& req,
                     report::Report& r) {
  auto* address = static_cast<const char*>(fault.address);
  for (const abi::MemoryRange& m : req.memory) {
    const char* first = m.extent_begin != nullptr ? m.extent_begin : m.guard_begin;
    if (address < first || address >= m.guard_end) continue;
    if (address >= m.origin && address < m.end) continue;  // inside this binding: another's
    r.check = report::CheckId::bounds_device;
    r.memory = m.name;
    r.has_offset = true;
    r.offset = int64_t(address - m.origin);
    r.message = std::string(access_word(fault)) + " outside the bound range of " +
                std::to_string(m.end - m.origin) + " bytes";
    if (address < m.origin)
      r.message +=
          m.contents != nullptr && address >= m.contents
              ? " (before its bound offset of " + std::to_string(m.origin - m.contents) + " bytes)"
              : " (before the buffer's start)";
    return true;
  }
  return false;
}

// Where the kernel's line is when the fault or stop is in code of no .metal file: the innermost
// return address into .metal code on the lane's stack, read upward from `from`.
// - A stack overflows wherever the deepest call lands, often inside an engine function the kernel
//   called (the access checks' runtime, whose frames grow under AddressSanitizer): read from the
//   stack's bottom, where the frames of the overflow still lie.
// - The watchdog stops a thread wherever it runs, maybe in the checks' runtime or a mutex the race
//   shadow takes: read from the stack pointer at its signal.
// Either way the stack is abandoned, not reused, until the report is made.
// The words from `from` (each less one: a return address's call) up to 16 KiB or the stack's top.
// Not checked by AddressSanitizer: dead frames' redzones are still poisoned, and reading them raw
// is the point.
__attribute__((no_sanitize("address"))) std::vector<const void*> stack_words(
    const fiber::GuardedStack& stack, const void* from) {
  constexpr size_t kScanBytes = 16 * 1024;
  const auto* first = static_cast<const char* const*>(from);
  const auto* top = static_cast<const char* const*>(stack.top());
  const size_t words = std::min<size_t>(kScanBytes / sizeof(void*), size_t(top - first));
  std::vector<const void*> returns;
  returns.reserve(words);
  for (size_t i = 0; i < words; ++i)
    if (first[i] != nullptr) returns.push_back(first[i] - 1);
  return returns;
}

// `from`: a word of `stack` to read from (null: its bottom); nothing happens when the report
// already names a user's line or `from` is not on the stack.
void name_the_kernel_frame(const fiber::GuardedStack* stack, report::Report& r,
                           const void* from = nullptr) {
  if (stack == nullptr || report::is_user_source(r.site.file)) return;
  if (from == nullptr) from = stack->bottom();
  if (from < stack->bottom() || from >= stack->top()) return;
  if (report::SourceSite site = report::first_user_site(stack_words(*stack, from)); site.known()) {
    if (report::is_library_source(r.site.file))
      r.library_site = r.site;  // a header the kernel called
    r.site = site;
  }
}

// An access outside a thread's private array, found by the private-bounds pass's test.
void describe_private(const fault::FaultRecord& fault, report::Report& r) {
  r.check = report::CheckId::bounds_private;
  r.memory = "thread array '" + std::string(fault.variable) + "'";
  r.message = std::string(access_word(fault)) + " of element " + std::to_string(fault.index) +
              " of a private array of " + std::to_string(fault.elements) + " elements";
}

std::string stack_size(const fiber::StackPool* stacks) {
  return std::to_string(stacks != nullptr ? stacks->stack_bytes() / 1024 : 0) + " KiB";
}

}  // namespace

void describe_fault(const fault::FaultRecord& fault, const FaultScene& scene, report::Report& r) {
  r.check = report::CheckId::kernel_fault;
  const abi::DispatchRequest& req = *scene.request;
  if (fault.timeout) {
    r.check = report::CheckId::watchdog_timeout;
    r.site = report::symbolize_loop(fault::FaultTrap::last_timeout_trace());
    if (const void* sp = fault::FaultTrap::last_timeout_stack_pointer(); sp != nullptr)
      name_the_kernel_frame(scene.running_stack, r, sp);  // not the bottom: stale frames lie there
    r.message = req.options.watchdog_deadline_ns != 0
                    ? "the dispatch ran past its deadline (a fuzz campaign's --time); this "
                      "thread was running here"
                    : "the dispatch ran past its limit of " +
                          std::to_string(req.options.watchdog_seconds) +
                          " s; this thread was running here";
    return;
  }
  if (fault.texture) {
    checks::describe_texture_fault(req, r);
    return;
  }
  fault::name_user_site(r, fault.pc, fault.callers);
  if (fault.variable != nullptr) {
    describe_private(fault, r);
    return;
  }
  if (fault.division) {
    r.message =
        "integer division or remainder by zero (or INT_MIN / -1): undefined in MSL; Apple GPUs "
        "return an unspecified value where the CPU traps";
    return;
  }
  auto* address = static_cast<const char*>(fault.address);
  if (const fiber::GuardedStack* overflowed =
          scene.stacks != nullptr ? scene.stacks->guard_owner(address) : nullptr) {
    r.check = report::CheckId::stack_overflow;
    name_the_kernel_frame(overflowed, r);
    r.message = "the thread overflowed its " + stack_size(scene.stacks) +
                " stack (set METALSIM_STACK_SIZE for more)";
    return;
  }
  if (describe_device(fault, req, r)) return;
  std::string region;
  if (scene.arena != nullptr && fault.detected) {
    int64_t outside = 0;
    if (scene.arena->describe_outside(address, region, outside)) {
      r.check = report::CheckId::bounds_threadgroup;
      r.memory = region;
      r.has_offset = true;
      r.offset = outside;
      r.message = std::string(access_word(fault)) + " outside " + region;
      return;
    }
  }
  uint64_t offset = 0;
  if (scene.arena != nullptr && scene.arena->describe_guard(address, region, offset)) {
    r.check = report::CheckId::bounds_threadgroup;
    r.memory = region;
    r.has_offset = true;
    r.offset = int64_t(offset);
    r.message = "access past the end of " + region;
    return;
  }
  if (below_stack(scene.running_stack, address)) {  // after buffers and regions: they may lie below
    r.check = report::CheckId::stack_overflow;
    name_the_kernel_frame(scene.running_stack, r);
    r.message = "the thread overflowed its " + stack_size(scene.stacks) +
                " stack by more than its guard page (set METALSIM_STACK_SIZE for more)";
    return;
  }
  r.message = "memory fault at address " + std::to_string(uintptr_t(address)) +
              ", outside every bound buffer";
}

}  // namespace metalsim::engine
