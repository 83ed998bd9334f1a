// Schedules: a race-free kernel gives bit-identical results under every policy and worker
// count; a barrier-free kernel runs as a plain loop, with no fiber.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "simt/engine/dispatch.h"
#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

void scale_by_two(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  buffer<float>(a, 1)[i] = buffer<const float>(a, 0)[i] * 2.0f;
}
HandKernel plain_kernel("test_plain_scale", {device_arg("in", 0, 4, true), device_arg("out", 1, 4)},
                        &lane_loop<scale_by_two>);

// A tree reduction in threadgroup memory: race-free only thanks to its barriers.
void tree_sum(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  auto* s = threadgroup<float>(a, 0);
  s[i] = buffer<const float>(a, 0)[g * n + i];
  engine::threadgroup_barrier();
  for (uint32_t stride = n / 2; stride > 0; stride /= 2) {
    if (i < stride) s[i] += s[i + stride];
    engine::threadgroup_barrier();
  }
  if (i == 0) buffer<float>(a, 1)[g] = s[0];
}
HandKernel tree_kernel("test_tree_sum",
                       {device_arg("in", 0, 4, true), device_arg("out", 1, 4),
                        threadgroup_arg("s", 0, 4)},
                       &lane_loop<tree_sum>);

// Counts, per threadgroup, how many times its first lane ran.
void count_runs(const BoundArgs& a, const LaneCursor& lane) {
  if (lane.value(Builtin::thread_index_in_threadgroup).x != 0) return;
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  __atomic_fetch_add(&buffer<uint32_t>(a, 0)[g], 1u, __ATOMIC_RELAXED);
}
HandKernel count_kernel("test_count_runs", {device_arg("runs", 0, 4)}, &lane_loop<count_runs>);

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint64_t s = seed;
  for (float& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = float(int32_t(s >> 33) % 2001 - 1000) / 37.0f;
  }
  return v;
}

TEST(Schedule, BarrierFreeKernelRunsAsAPlainLoop) {
  if (engine::racecheck_available())
    GTEST_SKIP() << "racecheck runs every lane on a fiber of its own (ThreadSanitizer context)";
  Harness h;
  auto input = random_floats(4096, 1);
  auto in = h.buffer(input);
  auto out = h.buffer(input.size() * 4);
  const uint64_t before = engine::fibers_started_total();
  auto* cb = h.run(
      "test_plain_scale",
      [&](auto* e) {
        e->setBuffer(in.get(), 0, 0);
        e->setBuffer(out.get(), 0, 1);
      },
      {4096, 1, 1}, {256, 1, 1}, true);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  EXPECT_EQ(engine::fibers_started_total(), before);
  const auto* got = static_cast<const float*>(out->contents());
  for (size_t i = 0; i < input.size(); ++i) ASSERT_EQ(got[i], input[i] * 2.0f);
}

TEST(Schedule, RaceFreeResultsAreBitIdenticalUnderEveryPolicyAndWorkerCount) {
  const uint32_t groups = 37, n = 256;
  auto input = random_floats(groups * n, 2);
  std::vector<uint32_t> reference;
  for (const char* schedule : {"in-order", "reversed", "random:1", "random:99"}) {
    for (uint32_t workers : {1u, 2u, 0u}) {
      Harness h;
      ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
      h.options().workers = workers;
      auto in = h.buffer(input);
      std::vector<float> poison(groups, std::numeric_limits<float>::quiet_NaN());
      auto out = h.buffer(poison);
      auto* cb = h.run("test_tree_sum",
                       [&](auto* e) {
                         e->setBuffer(in.get(), 0, 0);
                         e->setBuffer(out.get(), 0, 1);
                         e->setThreadgroupMemoryLength(n * 4, 0);
                       },
                       {groups, 1, 1}, {n, 1, 1});
      ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
      std::vector<uint32_t> bits(groups);
      std::memcpy(bits.data(), out->contents(), groups * 4);
      if (reference.empty()) {
        reference = bits;
        for (uint32_t g = 0; g < groups; ++g) {
          double sum = 0;
          for (uint32_t i = 0; i < n; ++i) sum += double(input[g * n + i]);
          float got;
          std::memcpy(&got, &bits[g], 4);
          EXPECT_NEAR(double(got), sum, 1e-3 * (1 + std::abs(sum))) << "threadgroup " << g;
        }
      }
      EXPECT_EQ(bits, reference) << schedule << " with " << workers << " workers";
    }
  }
}

// The workers share the grid as interleaved sequences of chunks and help each other
// (SharedHandout, dispatch.cpp): whatever the worker count (more workers than cores included),
// chunk size and order, every threadgroup runs once and only once.
TEST(Schedule, EveryThreadgroupRunsOnceWhateverTheWorkers) {
  for (uint32_t groups : {1u, 37u, 1000u, 5003u}) {
    for (const char* schedule : {"in-order", "random:7"}) {
      for (uint32_t workers : {1u, 2u, 3u, 7u, 16u}) {
        Harness h;
        ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
        h.options().workers = workers;
        auto runs = h.buffer(std::vector<uint32_t>(groups, 0));
        auto* cb = h.run("test_count_runs", [&](auto* e) { e->setBuffer(runs.get(), 0, 0); },
                         {groups, 1, 1}, {2, 1, 1});
        ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
        const auto* got = static_cast<const uint32_t*>(runs->contents());
        for (uint32_t g = 0; g < groups; ++g)
          ASSERT_EQ(got[g], 1u) << "threadgroup " << g << " of " << groups << ", " << workers
                                << " workers, " << schedule;
      }
    }
  }
}

}  // namespace
}  // namespace metalsim::testing
