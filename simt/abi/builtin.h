#pragma once
// The kernel attributes of MSL (thread_position_in_grid, ...), one table. Every consumer (the
// front's reflection, the lane cursor, docs/msl-coverage.md) goes through METALSIM_BUILTINS.
#include <cstdint>
#include <string_view>

namespace metalsim::abi {

// X(name, components): components is 3 for positions and sizes, 1 for indices and counts.
#define METALSIM_BUILTINS(X)                \
  X(thread_position_in_grid, 3)             \
  X(thread_position_in_threadgroup, 3)      \
  X(threadgroup_position_in_grid, 3)        \
  X(threads_per_threadgroup, 3)             \
  X(threadgroups_per_grid, 3)               \
  X(threads_per_grid, 3)                    \
  X(dispatch_threads_per_threadgroup, 3)    \
  X(grid_origin, 3)                         \
  X(grid_size, 3)                           \
  X(thread_index_in_threadgroup, 1)         \
  X(thread_index_in_simdgroup, 1)           \
  X(simdgroup_index_in_threadgroup, 1)      \
  X(simdgroups_per_threadgroup, 1)          \
  X(dispatch_simdgroups_per_threadgroup, 1) \
  X(threads_per_simdgroup, 1)               \
  X(thread_execution_width, 1)              \
  X(thread_index_in_quadgroup, 1)           \
  X(quadgroup_index_in_threadgroup, 1)      \
  X(quadgroups_per_threadgroup, 1)          \
  X(dispatch_quadgroups_per_threadgroup, 1)

enum class Builtin : uint8_t {
#define METALSIM_BUILTIN_ENUM(name, n) name,
  METALSIM_BUILTINS(METALSIM_BUILTIN_ENUM)
#undef METALSIM_BUILTIN_ENUM
};

// The value of a built-in for one lane; components beyond the built-in's arity are 0.
struct BuiltinValue {
  uint32_t x = 0, y = 0, z = 0;
};

std::string_view builtin_name(Builtin b);
int builtin_components(Builtin b);

inline constexpr uint32_t kSimdWidth = 32;  // Apple GPUs: threads_per_simdgroup
inline constexpr uint32_t kQuadWidth = 4;
// The most threads one threadgroup may have: the size of the engine's per-lane tables (the
// device profile's maxThreadsPerThreadgroup, 1024 on Apple GPUs, stays within it).
inline constexpr uint32_t kMaxThreadsPerThreadgroup = 1024;

}  // namespace metalsim::abi
