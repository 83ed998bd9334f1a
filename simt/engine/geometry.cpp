#include "simt/engine/geometry.h"

#include <algorithm>

namespace metalsim::engine {
namespace {

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

}  // namespace

DispatchGeometry DispatchGeometry::for_threadgroups(Size3 groups, Size3 tg_size) {
  return {groups, tg_size, {groups.x * tg_size.x, groups.y * tg_size.y, groups.z * tg_size.z}};
}

DispatchGeometry DispatchGeometry::for_threads(Size3 threads, Size3 tg_size) {
  Size3 groups{ceil_div(threads.x, tg_size.x), ceil_div(threads.y, tg_size.y),
               ceil_div(threads.z, tg_size.z)};
  return {groups, tg_size, threads};
}

Size3 DispatchGeometry::threadgroup_position(uint64_t linear) const {
  const uint64_t plane = uint64_t(threadgroups.x) * threadgroups.y;
  return {uint32_t(linear % threadgroups.x), uint32_t(linear / threadgroups.x % threadgroups.y),
          uint32_t(linear / plane)};
}

Size3 DispatchGeometry::threadgroup_size_at(Size3 pos) const {
  auto edge = [](uint32_t group, uint32_t size, uint32_t total) {
    return std::min(size, total - group * size);
  };
  return {edge(pos.x, threads_per_threadgroup.x, threads.x),
          edge(pos.y, threads_per_threadgroup.y, threads.y),
          edge(pos.z, threads_per_threadgroup.z, threads.z)};
}

BuiltinValue ThreadgroupGeometry::slow_value(Builtin b, uint32_t lane) const {
  const uint16_t* t = local[lane];
  const Size3& d = dispatch->threads_per_threadgroup;
  switch (b) {
    case Builtin::thread_position_in_grid:
      return {position.x * d.x + t[0], position.y * d.y + t[1], position.z * d.z + t[2]};
    case Builtin::thread_position_in_threadgroup: return {t[0], t[1], t[2]};
    case Builtin::threadgroup_position_in_grid: return {position.x, position.y, position.z};
    case Builtin::threads_per_threadgroup: return {size.x, size.y, size.z};
    case Builtin::threadgroups_per_grid: {
      const Size3& g = dispatch->threadgroups;
      return {g.x, g.y, g.z};
    }
    case Builtin::threads_per_grid:
    case Builtin::grid_size: {
      const Size3& g = dispatch->threads;
      return {g.x, g.y, g.z};
    }
    case Builtin::dispatch_threads_per_threadgroup: return {d.x, d.y, d.z};
    case Builtin::grid_origin: return {0, 0, 0};
    case Builtin::thread_index_in_threadgroup: return {lane};
    case Builtin::thread_index_in_simdgroup: return {lane % kSimdWidth};
    case Builtin::simdgroup_index_in_threadgroup: return {lane / kSimdWidth};
    case Builtin::simdgroups_per_threadgroup: return {simdgroup_count};
    case Builtin::dispatch_simdgroups_per_threadgroup:
      return {uint32_t((d.volume() + kSimdWidth - 1) / kSimdWidth)};
    case Builtin::threads_per_simdgroup:
    case Builtin::thread_execution_width: return {kSimdWidth};
    case Builtin::thread_index_in_quadgroup: return {lane % kQuadWidth};
    case Builtin::quadgroup_index_in_threadgroup: return {lane / kQuadWidth};
    case Builtin::quadgroups_per_threadgroup: return {(thread_count + kQuadWidth - 1) / kQuadWidth};
    case Builtin::dispatch_quadgroups_per_threadgroup:
      return {uint32_t((d.volume() + kQuadWidth - 1) / kQuadWidth)};
  }
  return {};
}

}  // namespace metalsim::engine
