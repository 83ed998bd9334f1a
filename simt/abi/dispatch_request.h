#pragma once
// What a dispatch asks of the engine and what it gives back: the kernel, the grid, the bound
// arguments and memory, the options; the reports and log lines. The host runtime builds the
// request (after validating it); the runners and the checks read it.
#include <string>
#include <vector>

#include "simt/abi/geometry.h"
#include "simt/abi/kernel.h"
#include "simt/base/execution_options.h"
#include "simt/report/log_line.h"
#include "simt/report/report.h"

namespace metalsim::checks::race {
class GroupShadow;  // simt/checks/race_shadow.h
}

namespace metalsim::abi {

// A range of memory a fault can be attributed to: a bound buffer and its guard pages.
struct MemoryRange {
  std::string name;              // "buffer(2) 'B'"
  const char* origin = nullptr;  // byte offset 0 of the report (the bound address)
  const char* end = nullptr;     // one past the last valid byte
  const char* guard_begin = nullptr;
  const char* guard_end = nullptr;
  const char* contents = nullptr;      // the buffer's first byte (origin less the bound offset)
  const char* extent_begin = nullptr;  // its mapping's first byte: [extent_begin, guard_end) is
                                       // the buffer's, inside it or around it
};

struct DispatchRequest {
  const KernelInfo* kernel = nullptr;
  DispatchGeometry geometry;
  BoundArgs args;  // buffers filled in; threadgroup pointers are per threadgroup
  uint32_t threadgroup_lengths[kMaxThreadgroupBindings] = {};
  uint32_t threadgroup_memory_limit = 32 * 1024;
  std::vector<const void*> function_constants;  // by [[function_constant(N)]] index
  std::vector<MemoryRange> memory;
  ExecutionOptions options;
  // Dispatches Metal may run at the same time as this one (a concurrent encoder's between memory
  // barriers, an indirect command buffer's commands between barriers): the shadow of their
  // device accesses, which the race check extends with this dispatch's (race.dispatch,
  // race_shadow.h), this dispatch's index in them (in encoding order) and how a report names it
  // ("dispatch 2", "indirect command buffer 'decode' command 1"). nullptr: none (the host sets it
  // with `race` on only).
  checks::race::GroupShadow* group = nullptr;
  uint32_t group_member = 0;
  std::string group_label;
  // Where the dispatch sits when the group spans command buffers (" of command buffer 3 on
  // queue 2"): reports add it to both labels when the two dispatches' differ.
  std::string group_context;
  // Initcheck (initcheck.cpp) sets these for its passes.
  uint8_t threadgroup_poison = 0xA5;
  bool trace_uninit = false;
};

struct DispatchOutcome {
  // false when an error was filed, or any report with options.strict; a warning alone
  // (barrier.exited) leaves it true, the report kept in `reports`.
  bool ok = true;
  std::vector<report::Report> reports;
  std::vector<report::LogLine> log;  // the kernels' log lines, in threadgroup order (kernel_log.h)
};

}  // namespace metalsim::abi
