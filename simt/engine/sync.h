#pragma once
// Sync points: what the MSL headers call. A lane that reaches one blocks until every live lane
// that must take part has arrived (the whole threadgroup for threadgroup_barrier, the lanes of
// its simdgroup for simd functions). The call site, from std::source_location, names the
// .metal line (through #line) and tells divergent barriers apart.
#include <cstdint>
#include <source_location>

namespace metalsim::engine {

enum class SyncKind : uint8_t {
  ThreadgroupBarrier,  // threadgroup_barrier: all live lanes of the threadgroup, one call site
  SimdgroupBarrier,    // simdgroup_barrier: the live lanes of the simdgroup at this call site
  SimdCollective,      // simd_sum, simd_shuffle, ...: active lanes at this call site
  SimdMatrix,          // simdgroup_matrix ops: every live lane of the simdgroup must be there
};

// One lane's part in a collective: its input, where its result goes, and a per-lane argument
// (a shuffle's source lane, a delta, ...). `in` and `out` point into the lane's own frame,
// which stays alive while the lane is blocked.
struct CollectiveMember {
  uint32_t simd_lane;
  const void* in;
  void* out;
  uint64_t arg;

  // `in` and `out` as the collective's own types: the combiner knows what the lanes passed.
  template <class T>
  const T& input() const {
    return *static_cast<const T*>(in);
  }
  template <class T>
  T& output() const {
    return *static_cast<T*>(out);
  }
};

// The lanes of one simdgroup that meet at one call site, sorted by simd lane.
struct CollectiveCall {
  const CollectiveMember* members;
  uint32_t count;
  uint32_t active_mask;  // bit i: simd lane i takes part
  uint32_t simd_size;    // lanes in this simdgroup (the last one may be partial)

  // The member with simd lane `lane`, or nullptr when that lane is not active.
  const CollectiveMember* find(uint32_t lane) const;
};

// Computes every member's result; runs once per resolved call, on the scheduler's side.
using CombineFn = void (*)(const CollectiveCall& call);

void threadgroup_barrier(std::source_location site = std::source_location::current());
void simdgroup_barrier(std::source_location site = std::source_location::current());
void simd_collective(CombineFn combine, const void* in, void* out, uint64_t arg, SyncKind kind,
                     std::source_location site = std::source_location::current());

// The current lane's identity, for headers that need it outside a collective.
uint32_t current_simd_lane();
uint32_t current_lane_index();

}  // namespace metalsim::engine
