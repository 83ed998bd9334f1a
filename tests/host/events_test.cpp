// Events, heaps and hazard tracking (issue 28 item 3; docs/host_api.md#events, #heaps): a command
// buffer waiting for an event runs when the event is signalled, by another command buffer or the
// host, and its queue's later buffers wait behind it; a wait nothing satisfies fails after the
// watchdog's time instead of hanging; heaps account for their buffers and make them untracked.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// out[i] = out[i] * 10 + step: the order of dispatches shows in the digits.
void append_step(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  buffer<uint32_t>(a, 0)[i] = buffer<uint32_t>(a, 0)[i] * 10 + *buffer<const uint32_t>(a, 1);
}
HandKernel step_kernel("test_events_append_step",
                       {device_arg("out", 0, 4), constant_arg("step", 1, 4)},
                       &lane_loop<append_step>);

constexpr uint32_t kCount = 96;

class Events : public ::testing::Test {
 protected:
  Events()
      : out_(h_.buffer(std::vector<uint32_t>(kCount, 0))),
        pso_(h_.pipeline("test_events_append_step")),
        first_(NS::TransferPtr(h_.device()->newCommandQueue())),
        second_(NS::TransferPtr(h_.device()->newCommandQueue())) {}

  // A command buffer of `queue` that appends `step`, with a wait before and a signal after when
  // `wait` / `signal` name an event.
  MTL::CommandBuffer* append(MTL::CommandQueue* queue, uint32_t step, MTL::Event* wait = nullptr,
                             uint64_t wait_value = 0, MTL::Event* signal = nullptr,
                             uint64_t signal_value = 0) {
    MTL::CommandBuffer* cb = queue->commandBuffer();
    cb->setExecutionOptions(h_.options());
    if (wait != nullptr) cb->encodeWait(wait, wait_value);
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->setComputePipelineState(pso_.get());
    e->setBuffer(out_.get(), 0, 0);
    e->setBytes(&step, 4, 1);
    e->dispatchThreads({kCount, 1, 1}, {32, 1, 1});
    e->endEncoding();
    if (signal != nullptr) cb->encodeSignalEvent(signal, signal_value);
    return cb;
  }

  // Every element's digits, or 0 when they differ.
  uint32_t digits() const {
    const auto* got = static_cast<const uint32_t*>(out_->contents());
    for (uint32_t i = 1; i < kCount; ++i)
      if (got[i] != got[0]) return 0;
    return got[0];
  }

  Harness h_;
  NS::SharedPtr<MTL::Buffer> out_;
  NS::SharedPtr<MTL::ComputePipelineState> pso_;
  NS::SharedPtr<MTL::CommandQueue> first_, second_;
};

TEST_F(Events, AWaitRunsAfterTheSignalOfAnotherQueue) {
  auto event = NS::TransferPtr(h_.device()->newEvent());
  MTL::CommandBuffer* waiting = append(first_.get(), 2, event.get(), 1);
  waiting->commit();
  EXPECT_EQ(waiting->status(), MTL::CommandBufferStatusScheduled) << "it waits on the GPU";
  EXPECT_EQ(digits(), 0u) << "nothing ran before the signal";
  // The same queue's next buffer waits behind it.
  MTL::CommandBuffer* behind = append(first_.get(), 3);
  behind->commit();
  EXPECT_EQ(behind->status(), MTL::CommandBufferStatusCommitted);
  MTL::CommandBuffer* signalling = append(second_.get(), 1, nullptr, 0, event.get(), 1);
  signalling->commit();
  for (MTL::CommandBuffer* cb : {signalling, waiting, behind}) {
    cb->waitUntilCompleted();
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  }
  EXPECT_EQ(digits(), 123u);
}

TEST_F(Events, AWaitAlreadyReachedDoesNotStop) {
  auto event = NS::TransferPtr(h_.device()->newEvent());
  MTL::CommandBuffer* a = append(first_.get(), 4, nullptr, 0, event.get(), 5);
  a->commit();
  MTL::CommandBuffer* b = append(second_.get(), 6, event.get(), 3);
  b->commit();
  EXPECT_EQ(b->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(b);
  EXPECT_EQ(digits(), 46u);
}

TEST_F(Events, TheHostSignalsASharedEvent) {
  auto event = NS::TransferPtr(h_.device()->newSharedEvent());
  MTL::CommandBuffer* waiting = append(first_.get(), 7, event.get(), 2);
  waiting->commit();
  event->setSignaledValue(1);
  EXPECT_EQ(waiting->status(), MTL::CommandBufferStatusScheduled) << "1 does not reach 2";
  EXPECT_EQ(event->signaledValue(), 1u);
  event->setSignaledValue(2);
  waiting->waitUntilCompleted();
  EXPECT_EQ(waiting->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(waiting);
  EXPECT_EQ(digits(), 7u);
  // A command buffer's signal, seen from the host.
  MTL::CommandBuffer* signalling = append(second_.get(), 8, nullptr, 0, event.get(), 9);
  EXPECT_FALSE(event->waitUntilSignaledValue(9, 10)) << "not committed yet";
  signalling->commit();
  EXPECT_TRUE(event->waitUntilSignaledValue(9, 10));
  EXPECT_EQ(event->signaledValue(), 9u);
  EXPECT_EQ(digits(), 78u);
}

// MLX waits for its events with a timeout of -1 (UINT64_MAX ms, "never times out") from the
// host while another thread signals them: the wait returns true once the value is reached, not
// at once.
TEST_F(Events, AWaitThatNeverTimesOutWaitsForTheSignal) {
  auto event = NS::TransferPtr(h_.device()->newSharedEvent());
  std::atomic<bool> signalled{false};
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    signalled = true;
    event->setSignaledValue(4);
  });
  EXPECT_TRUE(event->waitUntilSignaledValue(3, uint64_t(-1)));
  EXPECT_TRUE(signalled);
  EXPECT_EQ(event->signaledValue(), 4u);
  signaller.join();
  // Long but finite timeouts too.
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    event->setSignaledValue(5);
  });
  EXPECT_TRUE(event->waitUntilSignaledValue(5, uint64_t(1) << 62));
  later.join();
  EXPECT_FALSE(event->waitUntilSignaledValue(6, 1)) << "nothing signals 6";
}

TEST_F(Events, AWaitNothingSignalsFailsInsteadOfHanging) {
  auto event = NS::TransferPtr(h_.device()->newEvent());
  event->setLabel(NS::String::string("gate"));
  metalsim::ExecutionOptions options = h_.options();
  options.watchdog_seconds = 0.2;
  MTL::CommandBuffer* waiting = append(first_.get(), 5, event.get(), 3);
  waiting->setExecutionOptions(options);
  // Its completed handler runs when it fails, and may ask the buffer what it is.
  MTL::CommandBufferStatus seen = MTL::CommandBufferStatusNotEnqueued;
  waiting->addCompletedHandler([&](MTL::CommandBuffer* cb) { seen = cb->status(); });
  waiting->commit();
  MTL::CommandBuffer* behind = append(first_.get(), 6);
  behind->commit();
  waiting->waitUntilCompleted();
  ASSERT_EQ(waiting->status(), MTL::CommandBufferStatusError);
  EXPECT_EQ(seen, MTL::CommandBufferStatusError);
  ASSERT_NE(waiting->error(), nullptr);
  const std::string text = waiting->error()->localizedDescription()->utf8String();
  EXPECT_NE(text.find("event 'gate' to reach 3; it is at 0"), std::string::npos) << text;
  // The queue goes on after the failed buffer; the failed one ran nothing.
  behind->waitUntilCompleted();
  EXPECT_EQ(behind->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(behind);
  EXPECT_EQ(digits(), 6u);
}

TEST(Heaps, AccountForTheirBuffersAndMakeThemUntracked) {
  Harness h;
  auto d = NS::TransferPtr(MTL::HeapDescriptor::alloc()->init());
  EXPECT_EQ(h.device()->newHeap(d.get()), nullptr) << "a heap of size 0";
  const MTL::SizeAndAlign one =
      h.device()->heapBufferSizeAndAlign(1000, MTL::ResourceStorageModeShared);
  EXPECT_GE(one.size, 1000u);
  EXPECT_EQ(one.size % one.align, 0u);
  d->setSize(3 * one.size);
  auto heap = NS::TransferPtr(h.device()->newHeap(d.get()));
  ASSERT_TRUE(heap);
  EXPECT_EQ(heap->hazardTrackingMode(), MTL::HazardTrackingModeUntracked);
  auto a = NS::TransferPtr(heap->newBuffer(1000, MTL::ResourceStorageModeShared));
  auto b = NS::TransferPtr(heap->newBuffer(1000, MTL::ResourceHazardTrackingModeTracked));
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  EXPECT_EQ(a->length(), 1000u);
  EXPECT_EQ(a->heap(), heap.get());
  EXPECT_EQ(a->hazardTrackingMode(), MTL::HazardTrackingModeUntracked);
  EXPECT_EQ(b->hazardTrackingMode(), MTL::HazardTrackingModeTracked);
  EXPECT_EQ(heap->usedSize(), 2 * one.size);
  EXPECT_EQ(heap->newBuffer(2 * one.size, MTL::ResourceStorageModeShared), nullptr) << "full";
  b.reset();
  EXPECT_EQ(heap->usedSize(), one.size);
  // The buffer keeps its heap: released last, nothing dangles.
  MTL::Heap* raw = heap.get();
  heap.reset();
  EXPECT_EQ(raw->usedSize(), one.size);
  static_cast<uint32_t*>(a->contents())[249] = 7;  // its memory is its own to the end
  a.reset();

  auto tracked = NS::TransferPtr(MTL::HeapDescriptor::alloc()->init());
  tracked->setSize(one.size);
  tracked->setHazardTrackingMode(MTL::HazardTrackingModeTracked);
  auto th = NS::TransferPtr(h.device()->newHeap(tracked.get()));
  auto c = NS::TransferPtr(th->newBuffer(16, MTL::ResourceStorageModeShared));
  EXPECT_EQ(c->hazardTrackingMode(), MTL::HazardTrackingModeTracked);
}

TEST(Heaps, BuffersAreTrackedUnlessTheOptionsSayNot) {
  Harness h;
  auto tracked = NS::TransferPtr(h.device()->newBuffer(64, MTL::ResourceStorageModeShared));
  auto untracked = NS::TransferPtr(
      h.device()->newBuffer(64, MTL::ResourceOptions(MTL::ResourceStorageModeShared |
                                                     MTL::ResourceHazardTrackingModeUntracked)));
  EXPECT_EQ(tracked->hazardTrackingMode(), MTL::HazardTrackingModeTracked);
  EXPECT_EQ(untracked->hazardTrackingMode(), MTL::HazardTrackingModeUntracked);
  EXPECT_NE(tracked->identity(), untracked->identity());
}

}  // namespace
}  // namespace metalsim::testing
