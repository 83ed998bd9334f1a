#pragma once
// One dispatch: the threadgroups of a grid, run in parallel over OpenMP workers, each
// threadgroup by one worker's ThreadgroupRunner. The host runtime validates the request first;
// this layer runs it and collects the reports.
#include <functional>
#include <string>
#include <vector>

#include "simt/base/execution_options.h"
#include "simt/engine/geometry.h"
#include "simt/engine/kernel.h"
#include "simt/engine/kernel_log.h"
#include "simt/engine/schedule.h"
#include "simt/report/check_id.h"
#include "simt/report/report.h"

namespace metalsim::engine {

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
  // Initcheck (initcheck.cpp) sets these for its passes.
  uint8_t threadgroup_poison = 0xA5;
  bool trace_uninit = false;
};

struct DispatchOutcome {
  bool ok = true;  // false when any report was filed
  std::vector<check::Report> reports;
  std::vector<LogLine> log;  // the kernels' log lines, in threadgroup order (kernel_log.h)
};

DispatchOutcome execute_dispatch(const DispatchRequest& request);

// True in the tsan preset: ThreadSanitizer reports races between lanes and threadgroups as
// race.threadgroup / race.device (docs/checks.md). Other builds have schedule fuzzing only.
bool racecheck_available();

// Lanes moved onto fibers since the program started: 0 growth across a dispatch shows it ran
// as a plain loop.
uint64_t fibers_started_total();
// Threadgroups run in lane loops since the program started: growth across a dispatch shows that
// it ran in lane loops (ExecutionOptions::mode).
uint64_t lane_loop_threadgroups_total();
// Dispatches run with each kernel variant since the program started (KernelVariant): growth
// across a dispatch shows which variant ran it.
uint64_t variant_dispatches_total(KernelVariant variant);

}  // namespace metalsim::engine
