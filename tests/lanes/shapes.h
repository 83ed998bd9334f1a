#pragma once
// The dispatch shapes the lane-loop tests run, and what a test needs to know of them: how many
// lane slots a per-lane output has (threadgroups x dispatched threads per threadgroup) and
// whether a slot belongs to a lane that exists (edge threadgroups of dispatchThreads are partial).
#include <cstdint>
#include <string>
#include <vector>

#include "simt/abi/geometry.h"

namespace metalsim::lanes_test {

struct Shape {
  std::string name;
  abi::DispatchGeometry geometry;

  uint64_t groups() const { return geometry.threadgroups.volume(); }
  uint32_t stride() const { return uint32_t(geometry.threads_per_threadgroup.volume()); }
  uint64_t slots() const { return groups() * stride(); }
  // Lanes in linear threadgroup `g`.
  uint32_t threads_in(uint64_t g) const {
    return uint32_t(geometry.threadgroup_size_at(geometry.threadgroup_position(g)).volume());
  }
  bool lane_exists(uint64_t slot) const { return slot % stride() < threads_in(slot / stride()); }
  bool uniform_power_of_two() const {
    for (uint64_t g = 0; g < groups(); ++g)
      if ((threads_in(g) & (threads_in(g) - 1)) != 0) return false;
    return true;
  }
};

inline std::vector<Shape> test_shapes() {
  using abi::DispatchGeometry;
  return {
      {"tg256x3", DispatchGeometry::for_threadgroups({3, 1, 1}, {256, 1, 1})},
      {"tg1024x1", DispatchGeometry::for_threadgroups({1, 1, 1}, {1024, 1, 1})},
      {"tg100x2", DispatchGeometry::for_threadgroups({2, 1, 1}, {100, 1, 1})},
      {"tg33x2", DispatchGeometry::for_threadgroups({2, 1, 1}, {33, 1, 1})},
      {"tg32x3", DispatchGeometry::for_threadgroups({3, 1, 1}, {32, 1, 1})},
      {"tg1x4", DispatchGeometry::for_threadgroups({4, 1, 1}, {1, 1, 1})},
      {"tg16x8_2x2", DispatchGeometry::for_threadgroups({2, 2, 1}, {16, 8, 1})},
      {"threads300_by128", DispatchGeometry::for_threads({300, 1, 1}, {128, 1, 1})},
  };
}

}  // namespace metalsim::lanes_test
