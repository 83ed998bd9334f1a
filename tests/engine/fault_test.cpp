// Faults inside kernels end the command buffer with a report; the process goes on and the
// next dispatch runs normally.
#include <gtest/gtest.h>

#include <stdexcept>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

const report::Report* find(const MTL::CommandBuffer* cb, report::CheckId id) {
  for (const auto& r : cb->reports())
    if (r.check == id) return &r;
  return nullptr;
}

__attribute__((noinline)) uint32_t recurse(uint32_t depth) {
  volatile char frame[512];
  frame[0] = char(depth);
  return depth == 0 ? uint32_t(frame[0]) : recurse(depth - 1) + uint32_t(frame[depth % 512]);
}

void overflow_on_lane_5(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  buffer<uint32_t>(a, 0)[i] = i == 5 ? recurse(1u << 30) : i;
}
HandKernel overflow_kernel("test_stack_overflow", {device_arg("out", 0, 4)},
                           &lane_loop<overflow_on_lane_5>);

void write_past_the_end(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  buffer<uint32_t>(a, 0)[i] = i;  // the grid is larger than the buffer
}
HandKernel oob_kernel("test_oob_write", {device_arg("out", 0, 4)}, &lane_loop<write_past_the_end>);

void spin_forever(const BoundArgs& a, const LaneCursor& lane) {
  volatile uint32_t* flag = buffer<uint32_t>(a, 0);
  if (lane.value(Builtin::thread_index_in_threadgroup).x == 3)
    while (*flag == 0) {
    }
}
HandKernel spin_kernel("test_endless_loop", {device_arg("flag", 0, 4)}, &lane_loop<spin_forever>);

void throw_on_lane_7(const BoundArgs&, const LaneCursor& lane) {
  engine::threadgroup_barrier();
  if (lane.value(Builtin::thread_index_in_threadgroup).x == 7)
    throw std::runtime_error("lane seven");
}
HandKernel throw_kernel("test_throw", {}, &lane_loop<throw_on_lane_7>);

void ok_kernel_body(const BoundArgs& a, const LaneCursor& lane) {
  buffer<uint32_t>(a, 0)[lane.value(Builtin::thread_position_in_grid).x] = 1;
}
HandKernel ok_kernel("test_ok", {device_arg("out", 0, 4)}, &lane_loop<ok_kernel_body>);

void expect_next_dispatch_runs(Harness& h) {
  std::vector<uint32_t> zeros(128, 0);
  auto out = h.buffer(zeros);
  auto* cb =
      h.run("test_ok", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {2, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (int i = 0; i < 128; ++i) ASSERT_EQ(got[i], 1u);
}

TEST(Faults, StackOverflowNamesKernelAndThread) {
  Harness h;
  auto out = h.buffer(64 * 4);
  auto* cb = h.run("test_stack_overflow", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                   {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const report::Report* r = find(cb, report::CheckId::stack_overflow);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->kernel, "test_stack_overflow");
  EXPECT_EQ(r->lane.thread.x, 5u);
  expect_next_dispatch_runs(h);
}

TEST(Faults, DeviceWritePastTheEndIsBoundsDevice) {
  Harness h;
  auto out = h.buffer(100 * 4);  // 100 elements, 128 threads
  auto* cb = h.run("test_oob_write", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {2, 1, 1},
                   {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const report::Report* r = find(cb, report::CheckId::bounds_device);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->offset, 400u);
  EXPECT_EQ(r->lane.thread.x + r->lane.threadgroup.x * 64, 100u) << r->format();
  EXPECT_NE(r->memory.find("buffer(0)"), std::string::npos);
  EXPECT_NE(r->site.file.find("fault_test.cpp"), std::string::npos) << r->format();
  expect_next_dispatch_runs(h);
}

TEST(Faults, WatchdogEndsAnEndlessLoop) {
  Harness h;
  h.options().watchdog_seconds = 0.3;
  std::vector<uint32_t> zero(1, 0);
  auto flag = h.buffer(zero);
  auto* cb = h.run("test_endless_loop", [&](auto* e) { e->setBuffer(flag.get(), 0, 0); }, {1, 1, 1},
                   {32, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const report::Report* r = find(cb, report::CheckId::watchdog_timeout);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->lane.thread.x, 3u);
  EXPECT_EQ(cb->error()->code(), MTL::CommandBufferErrorTimeout);
  h.options().watchdog_seconds = 0;
  expect_next_dispatch_runs(h);
}

TEST(Faults, ExceptionInAFiberLaneIsReported) {
  Harness h;
  auto* cb = h.run("test_throw", [](auto*) {}, {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const report::Report* r = find(cb, report::CheckId::kernel_exception);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->lane.thread.x, 7u);
  EXPECT_NE(r->message.find("lane seven"), std::string::npos);
  expect_next_dispatch_runs(h);
}

}  // namespace
}  // namespace metalsim::testing
