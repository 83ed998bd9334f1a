// Racecheck under ThreadSanitizer (the tsan preset): a missing barrier and two threadgroups
// writing one element are reported with both lanes; the same kernels with the ordering they
// need are not. Skipped in other builds (schedule fuzzing covers those: tests/check).
#include <gtest/gtest.h>

#include "simt/engine/dispatch.h"
#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

template <bool WithBarrier>
void neighbour_sum(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  auto* s = threadgroup<float>(a, 0);
  s[i] = float(i);
  if (WithBarrier) engine::threadgroup_barrier();
  buffer<float>(a, 0)[lane.value(Builtin::thread_position_in_grid).x] = s[(i + 1) % n];
}
HandKernel racy("test_race_missing_barrier", {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                &lane_loop<neighbour_sum<false>>);
HandKernel fixed("test_race_with_barrier", {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                 &lane_loop<neighbour_sum<true>>);

void every_group_writes_element_zero(const BoundArgs& a, const LaneCursor& lane) {
  if (lane.value(Builtin::thread_index_in_threadgroup).x == 0)
    buffer<uint32_t>(a, 0)[0] = lane.value(Builtin::threadgroup_position_in_grid).x;
}
HandKernel shared_write("test_race_between_threadgroups", {device_arg("out", 0, 4)},
                        &lane_loop<every_group_writes_element_zero>);

class Racecheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!engine::racecheck_available()) GTEST_SKIP() << "racecheck needs the tsan preset";
  }
  static Harness harness() {
    Harness h;
    h.options().checks.race = true;
    return h;
  }
};

TEST_F(Racecheck, MissingBarrierIsARaceOnThreadgroupMemory) {
  Harness h = harness();
  auto out = h.buffer(64 * 4);
  auto* cb = h.run("test_race_missing_barrier",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength(64 * 4, 0);
                   },
                   {1, 1, 1}, {64, 1, 1});
  ASSERT_GE(Harness::count(cb, report::CheckId::race_threadgroup), 1u) << Harness::reports(cb);
  const report::Report& r = cb->reports().front();
  EXPECT_EQ(r.kernel, "test_race_missing_barrier");
  EXPECT_EQ(r.memory, "threadgroup(0)");
  EXPECT_NE(r.other_lanes.find("lane("), std::string::npos) << r.format();
  EXPECT_NE(r.site.file.find("race_test.cpp"), std::string::npos) << r.format();
}

TEST_F(Racecheck, BarrierOrdersTheSameAccesses) {
  Harness h = harness();
  auto out = h.buffer(4 * 64 * 4);
  auto* cb = h.run("test_race_with_barrier",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength(64 * 4, 0);
                   },
                   {4, 1, 1}, {64, 1, 1});
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
}

TEST_F(Racecheck, TwoThreadgroupsWritingOneElementRace) {
  Harness h = harness();
  h.options().workers = 2;
  auto out = h.buffer(16);
  auto* cb = h.run("test_race_between_threadgroups",
                   [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {8, 1, 1}, {32, 1, 1});
  ASSERT_GE(Harness::count(cb, report::CheckId::race_device), 1u) << Harness::reports(cb);
  EXPECT_NE(cb->reports().front().memory.find("buffer(0)"), std::string::npos)
      << Harness::reports(cb);
}

}  // namespace
}  // namespace metalsim::testing
