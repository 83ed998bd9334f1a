#pragma once
// How a dispatch runs: schedule, checks, workers, watchdog, execution mode. The one options
// type from the command line (metalsim --schedule/--checks/--workers/--watchdog/--mode) through
// the host API (set per command buffer) down to the engine.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "simt/base/check_set.h"
#include "simt/base/schedule_policy.h"
#include "simt/base/size3.h"

namespace metalsim {

// fibers: every lane of a synchronising kernel on a fiber (every check, every schedule, gdb by
// lane). loops: the lanes of a threadgroup as loops between sync points (fast; in-order only).
// auto: loops unless an enabled check or the schedule needs fibers.
enum class ExecutionMode : uint8_t { automatic, fibers, loops };
std::string_view execution_mode_name(ExecutionMode m);  // "auto", "fibers", "loops"
bool parse_execution_mode(std::string_view text, ExecutionMode& out);

// Which compiled variant of a kernel a dispatch runs (docs/architecture.md, "Two variants of
// every kernel"): checked, with the access-check pass's instrumentation (byte-precise bounds,
// the shadow racecheck, what init's runs need), or fast, the same optimised code without it. A
// dispatch with mem, race and init off runs the fast one where the library has it.
enum class KernelVariant : uint8_t { checked, fast };
std::string_view kernel_variant_name(KernelVariant v);  // "checked", "fast"

// One threadgroup as a worker ran it, for traces (metalsim trace).
struct ThreadgroupEvent {
  uint32_t worker = 0;
  uint64_t linear_threadgroup = 0;
  Size3 position;
  uint64_t begin_ns = 0, end_ns = 0;               // std::chrono::steady_clock
  KernelVariant variant = KernelVariant::checked;  // the code that ran it
};

struct ExecutionOptions {
  SchedulePolicy schedule;
  metalsim::CheckSet checks;
  uint32_t workers = 0;         // 0: every core (omp_get_max_threads)
  double watchdog_seconds = 0;  // 0: no limit
  // An absolute limit (std::chrono::steady_clock, ns; 0: none) every dispatch of a run respects
  // whatever its own start: a fuzz campaign's --time deadline across a case's many dispatches.
  uint64_t watchdog_deadline_ns = 0;
  size_t stack_bytes = 0;  // 0: fiber::default_stack_bytes()
  ExecutionMode mode = ExecutionMode::automatic;
  // Run the checked variant even with mem, race and init off: what the fast variant saves can then
  // be measured in one program (bench/kernels_bench's METALSIM_BENCH_CHECKED). Off: the variant
  // follows the checks.
  bool checked_variant = false;
  // Warnings (report::Severity::warning: barrier.exited) fail the dispatch as errors do: the
  // command buffer ends with CommandBufferStatusError. Off: a warning is kept in the reports of a
  // dispatch that completes. Also: with `mem`, an access to a buffer's bytes before its bound
  // offset is bounds.device (off: they are the buffer's, as on Metal). METALSIM_STRICT=1,
  // `metalsim --strict`.
  bool strict = false;
  // Called by the worker after each threadgroup, from several threads at once; empty: off.
  std::function<void(const ThreadgroupEvent&)> on_threadgroup;

  // METALSIM_SCHEDULE, METALSIM_CHECKS, METALSIM_THREADS, METALSIM_WATCHDOG (seconds),
  // METALSIM_MODE, METALSIM_STRICT (1: strict; 0 or unset: not).
  static ExecutionOptions from_environment();
};

}  // namespace metalsim
