#pragma once
// Threadgroup memory of the running threadgroup: the host-sized [[threadgroup(N)]] regions and
// the storage of kernel-scope `threadgroup` variables. Each worker owns an arena, reused from
// one threadgroup to the next; a threadgroup never sees another's memory.
#include <atomic>
#include <cstdint>

namespace metalsim::engine {

// One kernel-scope `threadgroup T name[...]` declaration. The front emits a function-local
// static of this type; the first lane to reach the declaration allocates, the others share it.
struct ThreadgroupVariableSite {
  uint32_t size;
  uint32_t align;
  const char* name;
  const char* file;
  uint32_t line;
  std::atomic<int32_t> slot{-1};  // assigned once, program-wide
};

void* threadgroup_variable(ThreadgroupVariableSite& site);

// Value of function constant `index` in the running dispatch, or nullptr if the pipeline did
// not set it.
const void* function_constant(uint32_t index);

}  // namespace metalsim::engine
