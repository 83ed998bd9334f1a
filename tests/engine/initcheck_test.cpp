// initcheck (simt/checks/initcheck.cpp): a value read from threadgroup memory that no lane wrote
// and that reaches device memory is reported with its lane; a dispatch whose result depends on the
// order of its threadgroups (two threadgroups writing one element) is not mistaken for one.
#include <gtest/gtest.h>

#include <atomic>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// Lane i copies s[i] to the output; only even lanes wrote their slot first.
void copy_half_written(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  auto* s = threadgroup<uint32_t>(a, 0);
  if (i % 2 == 0) s[i] = i;
  engine::threadgroup_barrier();
  buffer<uint32_t>(a, 0)[lane.value(Builtin::thread_position_in_grid).x] = s[i];
}
HandKernel half_written("test_initcheck_half_written",
                        {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                        &lane_loop<copy_half_written>);

// Every threadgroup writes its own index to element 0 after the same work: with two threadgroups
// on two workers, which one lands last is a coin toss. Threadgroup memory is written before it
// is read.
void last_group_wins(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t group = lane.value(Builtin::threadgroup_position_in_grid).x;
  auto* s = threadgroup<uint32_t>(a, 0);
  s[i] = group;
  engine::threadgroup_barrier();
  volatile uint32_t spin = 0;
  for (uint32_t k = 0; k < 2000; ++k) spin = spin + k;
  if (i == 0) buffer<uint32_t>(a, 0)[0] = s[0];
}
HandKernel last_wins("test_initcheck_last_group_wins",
                     {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                     &lane_loop<last_group_wins>);

// Completes its first run (the check's first fill); every later run of the process spins until
// the watchdog stops it, as a rerun that meets a fuzz campaign's deadline does.
std::atomic<int> runs_started{0};
void completes_only_once(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  auto* s = threadgroup<uint32_t>(a, 0);
  if (i == 0) runs_started.fetch_add(1);
  s[i] = i;
  engine::threadgroup_barrier();
  while (runs_started.load() > 1) {
  }
  buffer<uint32_t>(a, 0)[i] = s[i];
}
HandKernel completes_once("test_initcheck_completes_once",
                          {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                          &lane_loop<completes_only_once>);

TEST(Initcheck, UnwrittenThreadgroupMemoryReachingDeviceMemoryIsReported) {
  Harness h;
  h.options().workers = 2;
  auto out = h.buffer(4 * 64 * 4);
  auto* cb = h.run("test_initcheck_half_written",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength(64 * 4, 0);
                   },
                   {4, 1, 1}, {64, 1, 1});
  ASSERT_GE(Harness::count(cb, report::CheckId::uninit_threadgroup), 1u) << Harness::reports(cb);
  const report::Report& r = cb->reports().front();
  EXPECT_EQ(r.kernel, "test_initcheck_half_written");
  EXPECT_EQ(r.lane.thread.x % 2, 1u) << "an odd lane reads a slot nobody wrote";
}

// Before the serial confirmation, a parallel dispatch that differed between the two fills only
// because of its threadgroups' timing could be reported as an uninitialised read.
TEST(Initcheck, ThreadgroupOrderIsNotMistakenForAnUninitialisedRead) {
  Harness h;
  h.options().workers = 2;
  auto out = h.buffer(4);
  for (int attempt = 0; attempt < 40; ++attempt) {
    auto* cb = h.run("test_initcheck_last_group_wins",
                     [&](auto* e) {
                       e->setBuffer(out.get(), 0, 0);
                       e->setThreadgroupMemoryLength(32 * 4, 0);
                     },
                     {2, 1, 1}, {32, 1, 1});
    ASSERT_EQ(Harness::count(cb, report::CheckId::uninit_threadgroup), 0u)
        << "attempt " << attempt << ": " << Harness::reports(cb);
    ASSERT_LT(static_cast<uint32_t*>(out->contents())[0], 2u);
  }
}

// The check reruns the dispatch with a second poison; a rerun the watchdog stopped left the
// outputs incomplete. Its timeout is the dispatch's outcome: before, the rerun's outcome was
// dropped and the dispatch "completed" with unwritten outputs and no report (a false
// race.schedule in an hour-long fuzz campaign, docs/checks.md).
TEST(Initcheck, ARerunTheWatchdogStoppedIsReported) {
  Harness h;
  h.options().workers = 1;
  h.options().watchdog_seconds = 0.3;
  std::vector<uint32_t> poison(32, 0xDEADBEEF);
  auto out = h.buffer(poison);
  runs_started = 0;
  auto* cb = h.run("test_initcheck_completes_once",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setThreadgroupMemoryLength(32 * 4, 0);
                   },
                   {1, 1, 1}, {32, 1, 1});
  EXPECT_GE(runs_started.load(), 2) << "the check reran the dispatch";
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_EQ(Harness::count(cb, report::CheckId::watchdog_timeout), 1u) << Harness::reports(cb);
}

}  // namespace
}  // namespace metalsim::testing
