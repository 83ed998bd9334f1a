// Command buffers: dispatches run in order; one failing dispatch ends the buffer and skips
// the rest; ownership follows metal-cpp (new... is owned, SharedPtr releases).
#include <gtest/gtest.h>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// Every lane of a threadgroup stores its index into one word: the last lane to run wins, so
// the word shows the schedule the dispatch ran under.
void last_lane_wins(const BoundArgs& a, const LaneCursor& lane) {
  *buffer<uint32_t>(a, 0) = lane.value(Builtin::thread_index_in_threadgroup).x;
}
HandKernel last_lane_kernel("test_last_lane_wins", {device_arg("out", 0, 4)},
                            &lane_loop<last_lane_wins>);

// out[i] = out[i] * 10 + step: the order of dispatches shows in the digits.
void append_digit(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  buffer<uint32_t>(a, 0)[i] = buffer<uint32_t>(a, 0)[i] * 10 + *buffer<const uint32_t>(a, 1);
}
HandKernel digit_kernel("test_append_digit", {device_arg("out", 0, 4), constant_arg("step", 1, 4)},
                        &lane_loop<append_digit>);

TEST(CommandBuffer, DispatchesRunInOrder) {
  Harness h;
  std::vector<uint32_t> zeros(300, 0);
  auto out = h.buffer(zeros);
  auto pso = h.pipeline("test_append_digit");
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());
  enc->setBuffer(out.get(), 0, 0);
  for (uint32_t step = 1; step <= 3; ++step) {
    enc->setBytes(&step, 4, 1);
    enc->dispatchThreads({300, 1, 1}, {64, 1, 1});
  }
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (int i = 0; i < 300; ++i) ASSERT_EQ(got[i], 123u);
}

TEST(CommandBuffer, AFailedDispatchSkipsTheRest) {
  Harness h;
  std::vector<uint32_t> zeros(64, 0);
  auto out = h.buffer(zeros);
  auto pso = h.pipeline("test_append_digit");
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());
  enc->setBuffer(out.get(), 0, 0);
  uint32_t step = 1;
  enc->setBytes(&step, 4, 1);
  enc->dispatchThreads({64, 1, 1}, {64, 1, 1});
  enc->dispatchThreads({64, 1, 1}, {2048, 1, 1});  // over the limit
  enc->dispatchThreads({64, 1, 1}, {64, 1, 1});
  enc->endEncoding();
  cb->commit();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  EXPECT_EQ(got[0], 1u);  // the first ran, the third did not
}

TEST(CommandBuffer, SetBytesCopiesAtTheCall) {
  Harness h;
  std::vector<uint32_t> zeros(32, 0);
  auto out = h.buffer(zeros);
  uint32_t step = 7;
  auto* cb = h.run(
      "test_append_digit",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(out.get(), 0, 0);
        e->setBytes(&step, 4, 1);
        step = 9;  // too late: setBytes copied 7
      },
      {32, 1, 1}, {32, 1, 1}, true);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  EXPECT_EQ(static_cast<const uint32_t*>(out->contents())[5], 7u);
}

TEST(CommandBuffer, CommittingTwiceIsAnError) {
  Harness h;
  std::vector<uint32_t> zeros(32, 0);
  auto out = h.buffer(zeros);
  uint32_t step = 1;
  auto* cb = h.run(
      "test_append_digit",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(out.get(), 0, 0);
        e->setBytes(&step, 4, 1);
      },
      {32, 1, 1}, {32, 1, 1}, true);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  cb->commit();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_EQ(static_cast<const uint32_t*>(out->contents())[0], 1u);  // not run a second time
}

TEST(Ownership, AutoreleasePoolExistsForPortedCode) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  pool->release();
}

// Options travel with each command buffer: two buffers of one queue run under their own
// schedules, and neither changes the device's defaults.
TEST(CommandBuffer, ExecutionOptionsArePerCommandBuffer) {
  Harness h;
  auto out = h.buffer(std::vector<uint32_t>{77});
  auto pso = h.pipeline("test_last_lane_wins");
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  const metalsim::engine::SchedulePolicy device_default = h.device()->executionOptions().schedule;
  auto encode = [&](MTL::CommandBuffer* cb) {
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setBuffer(out.get(), 0, 0);
    enc->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
    enc->endEncoding();
  };
  MTL::CommandBuffer* reversed = queue->commandBuffer();
  metalsim::engine::ExecutionOptions options = reversed->executionOptions();
  options.schedule = {metalsim::engine::ScheduleKind::reversed, 0};
  reversed->setExecutionOptions(options);
  options.schedule = {metalsim::engine::ScheduleKind::in_order, 0};
  auto* descriptor = MTL::CommandBufferDescriptor::alloc()->init();
  descriptor->setExecutionOptions(options);
  MTL::CommandBuffer* in_order = queue->commandBuffer(descriptor);
  descriptor->release();
  encode(reversed);
  encode(in_order);
  reversed->commit();
  EXPECT_EQ(*static_cast<const uint32_t*>(out->contents()), 0u);  // lane 0 ran last
  in_order->commit();
  EXPECT_EQ(*static_cast<const uint32_t*>(out->contents()), 63u);  // lane 63 ran last
  EXPECT_EQ(h.device()->executionOptions().schedule, device_default);
}

TEST(Ownership, NewObjectsStartWithOneReference) {
  MTL::Device* device = MTL::CreateSystemDefaultDevice();
  MTL::Buffer* b = device->newBuffer(64, MTL::ResourceStorageModeShared);
  EXPECT_EQ(b->retainCount(), 1u);
  {
    auto shared = NS::RetainPtr(b);
    EXPECT_EQ(b->retainCount(), 2u);
  }
  EXPECT_EQ(b->retainCount(), 1u);
  b->release();
  device->release();
}

TEST(Library, UnknownKernelIsNullAndAnError) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto library = NS::TransferPtr(device->newDefaultLibrary());
  EXPECT_EQ(library->newFunction("nope"), nullptr);
  NS::Error* error = nullptr;
  EXPECT_EQ(library->newFunction(MTLSTR("nope"), nullptr, &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error->localizedDescription()->utf8String()).find("nope"),
            std::string::npos);
  // Autoreleased, as in metal-cpp: not released here.
}

}  // namespace
}  // namespace metalsim::testing
