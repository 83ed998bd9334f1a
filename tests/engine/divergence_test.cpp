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

// Threads 50.. return; of the others, 0..19 wait at one barrier and 20..49 at another.
void divergent_barrier_after_early_return(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  if (i >= 50) return;
  if (i < 20) engine::threadgroup_barrier();
  else engine::threadgroup_barrier();
  buffer<uint32_t>(a, 0)[i] = i;
}
HandKernel exited_divergent_kernel("test_exited_divergent_barrier", {device_arg("out", 0, 4)},
                                   &lane_loop<divergent_barrier_after_early_return>);

const report::Report* find(const MTL::CommandBuffer* cb, report::CheckId id) {
  for (const auto& r : cb->reports())
    if (r.check == id) return &r;
  return nullptr;
}

TEST(Divergence, BarrierInADivergentBranchNamesBothCallSites) {
  for (const char* schedule : {"in-order", "reversed", "random:5"}) {
    Harness h;
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
    auto out = h.buffer(64 * 4);
    auto* cb = h.run("test_divergent_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                     {1, 1, 1}, {64, 1, 1});
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
    const report::Report* r = find(cb, report::CheckId::barrier_divergent);
    ASSERT_NE(r, nullptr) << Harness::reports(cb);
    EXPECT_EQ(r->kernel, "test_divergent_barrier");
    const std::set<uint32_t> lines{r->site.line, r->other_site.line};
    EXPECT_EQ(lines,
              (std::set<uint32_t>{uint32_t(line_of_even_barrier), uint32_t(line_of_odd_barrier)}))
        << r->format();
    EXPECT_NE(cb->error(), nullptr);
  }
}

TEST(Divergence, BarrierAfterAnEarlyReturnIsAWarningAndCompletes) {
  for (const char* schedule : {"in-order", "reversed", "random:5"}) {
    Harness h;
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
    std::vector<uint32_t> poison(64, 0xFFFFFFFFu);
    auto out = h.buffer(poison);
    auto* cb = h.run("test_exited_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                     {1, 1, 1}, {64, 1, 1});
    // A portability warning, as Apple GPUs run such a kernel to its end: the buffer completes,
    // with the report kept.
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
    EXPECT_EQ(cb->error(), nullptr);
    const report::Report* r = find(cb, report::CheckId::barrier_exited);
    ASSERT_NE(r, nullptr) << Harness::reports(cb);
    EXPECT_EQ(r->severity(), report::Severity::warning);
    EXPECT_EQ(r->site.line, uint32_t(line_of_late_barrier));
    EXPECT_NE(r->other_lanes.find("50..63"), std::string::npos) << r->format();
    EXPECT_NE(r->format().find("barrier.exited (warning): "), std::string::npos) << r->format();
    // The live lanes were released and finished; the returned ones wrote nothing.
    const auto* got = static_cast<const uint32_t*>(out->contents());
    for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(got[i], i);
    for (uint32_t i = 50; i < 64; ++i) EXPECT_EQ(got[i], 0xFFFFFFFFu);
  }
}

TEST(Divergence, StrictMakesTheWarningAnError) {
  Harness h;
  h.options().strict = true;
  auto out = h.buffer(64 * 4);
  auto* cb = h.run("test_exited_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                   {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  ASSERT_NE(find(cb, report::CheckId::barrier_exited), nullptr) << Harness::reports(cb);
  ASSERT_NE(cb->error(), nullptr);
  EXPECT_NE(cb->error()->localizedDescription()->str().find("barrier.exited (warning)"),
            std::string::npos);
}

// Two dispatches of the kernel in one command buffer: after a warning the second still runs (an
// error would have skipped it); strict stops the buffer at the first.
TEST(Divergence, TheDispatchAfterAWarningRunsUnlessStrict) {
  for (const bool strict : {false, true}) {
    Harness h;
    h.options().strict = strict;
    std::vector<uint32_t> poison(64, 0xFFFFFFFFu);
    auto first = h.buffer(poison), second = h.buffer(poison);
    auto pso = h.pipeline("test_exited_barrier");
    auto queue = NS::TransferPtr(h.device()->newCommandQueue());
    MTL::CommandBuffer* cb = queue->commandBuffer();
    cb->setExecutionOptions(h.options());
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->setComputePipelineState(pso.get());
    e->setBuffer(first.get(), 0, 0);
    e->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
    e->setBuffer(second.get(), 0, 0);
    e->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
    e->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    EXPECT_EQ(cb->status(),
              strict ? MTL::CommandBufferStatusError : MTL::CommandBufferStatusCompleted);
    EXPECT_EQ(Harness::count(cb, report::CheckId::barrier_exited), strict ? 1u : 2u)
        << Harness::reports(cb);
    const auto* got = static_cast<const uint32_t*>(second->contents());
    EXPECT_EQ(got[0], strict ? 0xFFFFFFFFu : 0u) << "strict " << strict;
  }
}

TEST(Divergence, LiveThreadsAtDifferentBarriersAfterAnEarlyReturnAreStillAnError) {
  Harness h;
  auto out = h.buffer(64 * 4);
  auto* cb = h.run("test_exited_divergent_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                   {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const report::Report* r = find(cb, report::CheckId::barrier_divergent);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->severity(), report::Severity::error);
}

TEST(Divergence, SyncCheckOffStillNeverHangs) {
  Harness h;
  h.options().checks.sync = false;
  auto out = h.buffer(64 * 4);
  auto* cb = h.run("test_exited_barrier", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                   {4, 1, 1}, {64, 1, 1});
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
}

}  // namespace
}  // namespace metalsim::testing
