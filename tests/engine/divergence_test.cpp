// Divergent barriers and barriers after an early return are reported, naming the call sites,
// and never hang.
#include <gtest/gtest.h>

#include <set>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

int line_of_even_barrier = 0, line_of_odd_barrier = 0, line_of_late_barrier = 0;

void barrier_in_divergent_branch(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  if (i < 40) {
    line_of_even_barrier = __LINE__ + 1;
    engine::threadgroup_barrier();
  } else {
    line_of_odd_barrier = __LINE__ + 1;
    engine::threadgroup_barrier();
  }
  buffer<uint32_t>(a, 0)[i] = i;
}
HandKernel divergent_kernel("test_divergent_barrier", {device_arg("out", 0, 4)},
                            &lane_loop<barrier_in_divergent_branch>);

void barrier_after_early_return(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  if (i >= 50) return;
  line_of_late_barrier = __LINE__ + 1;
  engine::threadgroup_barrier();
  buffer<uint32_t>(a, 0)[i] = i;
}
HandKernel exited_kernel("test_exited_barrier", {device_arg("out", 0, 4)},
                         &lane_loop<barrier_after_early_return>);

const check::Report* find(const MTL::CommandBuffer* cb, check::CheckId id) {
  for (const auto& r : cb->reports())
    if (r.check == id) return &r;
  return nullptr;
}

TEST(Divergence, BarrierInADivergentBranchNamesBothCallSites) {
  for (const char* schedule : {"in-order", "reversed", "random:5"}) {
    Harness h;
    ASSERT_TRUE(engine::SchedulePolicy::parse(schedule, h.options().schedule));
    auto out = h.buffer(64 * 4);
    auto* cb = h.run("test_divergent_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {1, 1, 1}, {64, 1, 1});
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
    const check::Report* r = find(cb, check::CheckId::barrier_divergent);
    ASSERT_NE(r, nullptr) << Harness::reports(cb);
    EXPECT_EQ(r->kernel, "test_divergent_barrier");
    const std::set<uint32_t> lines{r->site.line, r->other_site.line};
    EXPECT_EQ(lines, (std::set<uint32_t>{uint32_t(line_of_even_barrier), uint32_t(line_of_odd_barrier)}))
        << r->format();
    EXPECT_NE(cb->error(), nullptr);
  }
}

TEST(Divergence, BarrierAfterAnEarlyReturnIsReportedAndCompletes) {
  Harness h;
  std::vector<uint32_t> poison(64, 0xFFFFFFFFu);
  auto out = h.buffer(poison);
  auto* cb = h.run("test_exited_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const check::Report* r = find(cb, check::CheckId::barrier_exited);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->site.line, uint32_t(line_of_late_barrier));
  EXPECT_NE(r->other_lanes.find("50..63"), std::string::npos) << r->format();
  // The live lanes were released and finished.
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(got[i], i);
}

TEST(Divergence, SyncCheckOffStillNeverHangs) {
  Harness h;
  h.options().checks.sync = false;
  auto out = h.buffer(64 * 4);
  auto* cb = h.run("test_exited_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {4, 1, 1}, {64, 1, 1});
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
}

}  // namespace
}  // namespace metalsim::testing
