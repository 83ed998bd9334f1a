// What one lane writes to threadgroup memory before a threadgroup_barrier, every lane reads
// after it; under every schedule policy and with any number of workers.
#include <gtest/gtest.h>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// Each lane writes its slot, waits, then reads a slot written by another lane (two rounds,
// so the second barrier also orders reads of round one before writes of round two).
void rotate_through_threadgroup_memory(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  auto* shared = threadgroup<uint32_t>(a, 0);
  auto* out = buffer<uint32_t>(a, 0) + (uint64_t(g) * n + i) * 2;
  shared[i] = g * 10000 + i * 7;
  engine::threadgroup_barrier();
  uint32_t first = shared[(i + 1) % n];
  engine::threadgroup_barrier();
  shared[i] = first + 1;
  engine::threadgroup_barrier();
  out[0] = first;
  out[1] = shared[(i + n - 1) % n];
}
HandKernel rotate_kernel("test_barrier_rotate",
                         {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                         &lane_loop<rotate_through_threadgroup_memory>);

struct Shape {
  uint32_t groups, threads;
};

class BarrierTest : public ::testing::TestWithParam<std::tuple<Shape, const char*, uint32_t>> {};

TEST_P(BarrierTest, WritesBeforeABarrierAreSeenByEveryLaneAfterIt) {
  auto [shape, schedule, workers] = GetParam();
  Harness h;
  ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
  h.options().workers = workers;
  std::vector<uint32_t> poison(size_t(shape.groups) * shape.threads * 2, 0xFFFFFFFFu);
  auto out = h.buffer(poison);
  auto* cb = h.run("test_barrier_rotate",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength((shape.threads * 4 + 15) / 16 * 16, 0);
                   },
                   {shape.groups, 1, 1}, {shape.threads, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  const uint32_t n = shape.threads;
  for (uint32_t g = 0; g < shape.groups; ++g)
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t first = g * 10000 + ((i + 1) % n) * 7;
      const uint32_t left = (i + n - 1) % n;
      const uint32_t second = g * 10000 + ((left + 1) % n) * 7 + 1;
      ASSERT_EQ(got[(g * n + i) * 2], first) << "threadgroup " << g << " lane " << i;
      ASSERT_EQ(got[(g * n + i) * 2 + 1], second) << "threadgroup " << g << " lane " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Schedules, BarrierTest,
                         ::testing::Combine(::testing::Values(Shape{7, 256}, Shape{3, 1024},
                                                              Shape{5, 33}, Shape{2, 1}),
                                            ::testing::Values("in-order", "reversed", "random:7"),
                                            ::testing::Values(1u, 0u)));

}  // namespace
}  // namespace metalsim::testing
