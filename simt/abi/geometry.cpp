#include "simt/abi/geometry.h"

#include <algorithm>

namespace metalsim::abi {
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

}  // namespace metalsim::abi
