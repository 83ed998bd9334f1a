#pragma once
// Every check metalsim makes, one table. Ids read `category.scope`; the family decides which
// --checks switch turns it on (api checks are always on: misuse is never silently accepted).
#include <cstdint>
#include <string_view>

#include "simt/base/check_set.h"

namespace metalsim::report {

// X(enumerator, "id", family, "what it means")
#define METALSIM_CHECKS(X)                                                                         \
  X(barrier_divergent, "barrier.divergent", sync,                                                  \
    "lanes of one threadgroup wait at different barriers")                                         \
  X(barrier_exited, "barrier.exited", sync,                                                        \
    "a barrier was reached after other lanes had returned")                                        \
  X(simd_partial, "simd.partial", sync,                                                            \
    "a simdgroup-wide operation was reached by part of the simdgroup")                             \
  X(sync_deadlock, "sync.deadlock", sync, "no lane of the threadgroup can make progress")          \
  X(stack_overflow, "stack.overflow", mem, "a lane overflowed its stack")                          \
  X(bounds_device, "bounds.device", mem, "access outside a bound device buffer")                   \
  X(bounds_threadgroup, "bounds.threadgroup", mem, "access outside threadgroup memory")            \
  X(bounds_texture, "bounds.texture", mem, "a texture read or write outside the texture")          \
  X(bounds_private, "bounds.private", mem, "access outside a thread's private array")              \
  X(kernel_fault, "kernel.fault", mem, "a memory fault outside any known buffer")                  \
  X(uninit_threadgroup, "uninit.threadgroup", init, "threadgroup memory read before any write")    \
  X(uninit_output, "uninit.output", init, "an output element the dispatch never wrote")            \
  X(race_threadgroup, "race.threadgroup", race,                                                    \
    "conflicting threadgroup-memory accesses with no barrier between")                             \
  X(race_device, "race.device", race,                                                              \
    "conflicting device-memory accesses with no ordering between")                                 \
  X(race_dispatch, "race.dispatch", race,                                                          \
    "conflicting device-memory accesses of two dispatches Metal may run at the same time")         \
  X(race_schedule, "race.schedule", race, "the result depends on the schedule")                    \
  X(mode_divergent, "mode.divergent", race, "fibers and lane loops wrote different results")       \
  X(kernel_exception, "kernel.exception", api, "the kernel threw a C++ exception")                 \
  X(watchdog_timeout, "watchdog.timeout", api, "the dispatch ran past its time limit")             \
  X(mode_unavailable, "mode.unavailable", api,                                                     \
    "lane loops were asked for a kernel that cannot run in them")                                  \
  X(limit_threads, "limit.threads_per_threadgroup", api, "threads per threadgroup over the limit") \
  X(limit_threadgroup_memory, "limit.threadgroup_memory", api,                                     \
    "threadgroup memory over the limit")                                                           \
  X(api_unbound_buffer, "api.unbound_buffer", api, "a kernel argument has no binding")             \
  X(api_wrong_kind, "api.wrong_kind", api, "a binding of the wrong kind for the argument")         \
  X(api_offset, "api.offset", api, "a buffer offset past the end or misaligned")                   \
  X(api_empty_grid, "api.empty_grid", api, "a dispatch with a zero dimension")                     \
  X(api_misuse, "api.misuse", api, "an API call out of order or with invalid arguments")

// How a report weighs. An error stops the dispatch and fails its command buffer. A warning is a
// portability finding: the kernel runs to its end (as on Apple GPUs) and the report is kept
// beside the results; ExecutionOptions::strict (METALSIM_STRICT=1, `metalsim --strict`) makes a
// warning fail the command buffer as an error does. barrier.exited is the one warning.
enum class Severity : uint8_t { error, warning };
std::string_view severity_name(Severity s);  // "error", "warning"

enum class CheckId : uint8_t {
#define METALSIM_CHECK_ENUM(e, id, fam, what) e,
  METALSIM_CHECKS(METALSIM_CHECK_ENUM)
#undef METALSIM_CHECK_ENUM
};

std::string_view check_name(CheckId id);     // "barrier.divergent"
std::string_view check_meaning(CheckId id);  // one line
CheckFamily check_family(CheckId id);
Severity check_severity(CheckId id);
// The check named `name` ("bounds.device"); false when no check has that name.
bool check_from_name(std::string_view name, CheckId& out);

// Whether this build can detect `id` at all: race.threadgroup and race.device need the tsan
// preset; every other check is always available. Tests of a check skip when it is not.
bool check_implemented(CheckId id);

}  // namespace metalsim::report
