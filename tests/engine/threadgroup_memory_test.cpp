// Threadgroup memory is private to its threadgroup, even with many running at once, and
// kernel-scope threadgroup variables are shared by the lanes of one threadgroup only.
#include <gtest/gtest.h>

#include "simt/engine/threadgroup_memory.h"
#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// Every lane fills its share with the threadgroup's id; after a barrier every lane checks the
// whole region (dynamic and kernel-scope) still holds only that id.
void fill_and_verify(const BoundArgs& a, const LaneCursor& lane) {
  static engine::ThreadgroupVariableSite site{256 * 4, 4, "scratch", __FILE__, __LINE__};
  auto* scratch = static_cast<uint32_t*>(engine::threadgroup_variable(site));
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  auto* shared = threadgroup<uint32_t>(a, 0);
  const uint32_t words = a.threadgroup_lengths[0] / 4;
  for (uint32_t w = i; w < words; w += n) shared[w] = g;
  for (uint32_t w = i; w < 256; w += n) scratch[w] = g + 1;
  engine::threadgroup_barrier();
  uint32_t bad = 0;
  for (uint32_t w = 0; w < words; ++w) bad += shared[w] != g;
  for (uint32_t w = 0; w < 256; ++w) bad += scratch[w] != g + 1;
  buffer<uint32_t>(a, 0)[g * n + i] = bad;
}
HandKernel isolation_kernel("test_tg_isolation",
                            {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                            &lane_loop<fill_and_verify>, 256 * 4);

TEST(ThreadgroupMemory, IsPrivateToEachThreadgroupRunningAtOnce) {
  Harness h;
  h.options().workers = 0;
  h.options().schedule = {metalsim::ScheduleKind::random, 11};
  const uint32_t groups = 64, threads = 96;
  std::vector<uint32_t> poison(groups * threads, 0xFFFFFFFFu);
  auto out = h.buffer(poison);
  auto* cb = h.run("test_tg_isolation",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength(8192, 0);
                   },
                   {groups, 1, 1}, {threads, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (uint32_t k = 0; k < groups * threads; ++k) ASSERT_EQ(got[k], 0u) << "thread " << k;
}

TEST(ThreadgroupMemory, KernelScopeVariablesCountAgainstTheLimit) {
  Harness h;
  auto out = h.buffer(64 * 4);
  // 32 KiB dynamic + 1 KiB kernel-scope: over the profile's 32 KiB.
  auto* cb = h.run("test_tg_isolation",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength(32 * 1024, 0);
                   },
                   {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_NE(Harness::reports(cb).find("limit.threadgroup_memory"), std::string::npos)
      << Harness::reports(cb);
}

}  // namespace
}  // namespace metalsim::testing
