#pragma once
// Dispatch geometry: the grid, the threadgroups, and what each threadgroup sees of them.
#include <cstdint>

#include "simt/abi/builtin.h"
#include "simt/base/size3.h"

namespace metalsim::abi {

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

// What a threadgroup's built-ins derive from, besides the lane's own index and position.
struct ThreadgroupShape {
  const DispatchGeometry* dispatch = nullptr;
  Size3 position;  // threadgroup_position_in_grid
  Size3 size;      // threads_per_threadgroup (actual)
  uint32_t thread_count = 0;
  uint32_t simdgroup_count = 0;
};

// The value of built-in `b` for the lane with linear index `lane` and
// thread_position_in_threadgroup `local`: the one table of how each MSL kernel attribute is
// computed, which fibers (ThreadgroupGeometry) and lane loops (LaneLoopState) both read. Inline and
// free of calls, so that a lane loop reading built-ins vectorizes and a constant `b` folds the
// switch away.
inline BuiltinValue builtin_value(Builtin b, uint32_t lane, const BuiltinValue& local,
                                  const ThreadgroupShape& tg) {
  const Size3& d = tg.dispatch->threads_per_threadgroup;
  switch (b) {
    case Builtin::thread_position_in_grid:
      return {tg.position.x * d.x + local.x, tg.position.y * d.y + local.y,
              tg.position.z * d.z + local.z};
    case Builtin::thread_position_in_threadgroup: return local;
    case Builtin::threadgroup_position_in_grid:
      return {tg.position.x, tg.position.y, tg.position.z};
    case Builtin::threads_per_threadgroup: return {tg.size.x, tg.size.y, tg.size.z};
    case Builtin::threadgroups_per_grid: {
      const Size3& g = tg.dispatch->threadgroups;
      return {g.x, g.y, g.z};
    }
    case Builtin::threads_per_grid:
    case Builtin::grid_size: {
      const Size3& g = tg.dispatch->threads;
      return {g.x, g.y, g.z};
    }
    case Builtin::dispatch_threads_per_threadgroup: return {d.x, d.y, d.z};
    case Builtin::grid_origin: return {0, 0, 0};
    case Builtin::thread_index_in_threadgroup: return {lane};
    case Builtin::thread_index_in_simdgroup: return {lane % kSimdWidth};
    case Builtin::simdgroup_index_in_threadgroup: return {lane / kSimdWidth};
    case Builtin::simdgroups_per_threadgroup: return {tg.simdgroup_count};
    case Builtin::dispatch_simdgroups_per_threadgroup:
      return {uint32_t((d.volume() + kSimdWidth - 1) / kSimdWidth)};
    case Builtin::threads_per_simdgroup:
    case Builtin::thread_execution_width: return {kSimdWidth};
    case Builtin::thread_index_in_quadgroup: return {lane % kQuadWidth};
    case Builtin::quadgroup_index_in_threadgroup: return {lane / kQuadWidth};
    case Builtin::quadgroups_per_threadgroup:
      return {(tg.thread_count + kQuadWidth - 1) / kQuadWidth};
    case Builtin::dispatch_quadgroups_per_threadgroup:
      return {uint32_t((d.volume() + kQuadWidth - 1) / kQuadWidth)};
  }
  return {};
}

// Everything the built-ins of one threadgroup's lanes derive from, on fibers.
struct ThreadgroupGeometry : ThreadgroupShape {
  // local[lane] = thread_position_in_threadgroup of linear lane `lane`.
  const uint16_t (*local)[3] = nullptr;

  BuiltinValue value(Builtin b, uint32_t lane) const {
    const uint16_t* t = local[lane];
    return builtin_value(b, lane, {t[0], t[1], t[2]}, *this);
  }
};

}  // namespace metalsim::abi
