#pragma once
// Dispatch geometry: the grid, the threadgroups, and what each threadgroup sees of them.
#include <cstdint>

#include "simt/base/size3.h"
#include "simt/engine/builtin.h"

namespace metalsim::engine {

// What a dispatch fixes: the grid of threadgroups and the uniform threadgroup size. For
// dispatchThreads the edge threadgroups are partial: threads_per_grid is not a multiple of
// the threadgroup size.
struct DispatchGeometry {
  Size3 threadgroups;             // threadgroups_per_grid
  Size3 threads_per_threadgroup;  // as dispatched (dispatch_threads_per_threadgroup)
  Size3 threads;                  // threads_per_grid

  static DispatchGeometry for_threadgroups(Size3 groups, Size3 tg_size);
  static DispatchGeometry for_threads(Size3 threads, Size3 tg_size);

  Size3 threadgroup_position(uint64_t linear_threadgroup) const;
  // The actual size of the threadgroup at `pos`: smaller than threads_per_threadgroup at the
  // edges of a dispatchThreads grid.
  Size3 threadgroup_size_at(Size3 pos) const;
};

// Everything the built-ins of one threadgroup's lanes derive from.
struct ThreadgroupGeometry {
  const DispatchGeometry* dispatch = nullptr;
  Size3 position;  // threadgroup_position_in_grid
  Size3 size;      // threads_per_threadgroup (actual)
  uint32_t thread_count = 0;
  uint32_t simdgroup_count = 0;
  // local[lane] = thread_position_in_threadgroup of linear lane `lane`.
  const uint16_t (*local)[3] = nullptr;

  // Inline: the generated lane loop calls it once per built-in per lane.
  BuiltinValue value(Builtin b, uint32_t lane) const {
    const uint16_t* t = local[lane];
    const Size3& d = dispatch->threads_per_threadgroup;
    switch (b) {
      case Builtin::thread_position_in_grid:
        return {position.x * d.x + t[0], position.y * d.y + t[1], position.z * d.z + t[2]};
      case Builtin::thread_position_in_threadgroup: return {t[0], t[1], t[2]};
      case Builtin::thread_index_in_threadgroup: return {lane};
      case Builtin::thread_index_in_simdgroup: return {lane % kSimdWidth};
      case Builtin::simdgroup_index_in_threadgroup: return {lane / kSimdWidth};
      case Builtin::threadgroup_position_in_grid: return {position.x, position.y, position.z};
      case Builtin::threads_per_threadgroup: return {size.x, size.y, size.z};
      default: return slow_value(b, lane);
    }
  }
  BuiltinValue slow_value(Builtin b, uint32_t lane) const;
};

}  // namespace metalsim::engine
