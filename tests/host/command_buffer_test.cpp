// Command buffers: dispatches run in order; one failing dispatch ends the buffer and skips
// the rest; ownership follows metal-cpp (new... is owned, SharedPtr releases).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

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

// The digits of out[0] after dispatches that each append their step, encoded by `encode` on a
// fresh command buffer run under `schedule`: the order they ran in.
uint32_t digits_under(Harness& h, const char* schedule,
                      const std::function<void(MTL::CommandBuffer*, MTL::Buffer*)>& encode) {
  auto out = h.buffer(std::vector<uint32_t>(64, 0));
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  metalsim::ExecutionOptions options = h.options();
  EXPECT_TRUE(metalsim::SchedulePolicy::parse(schedule, options.schedule));
  cb->setExecutionOptions(options);
  encode(cb, out.get());
  cb->commit();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  return static_cast<const uint32_t*>(out->contents())[0];
}

// A concurrent encoder's dispatches between memory barriers (a concurrent group) run in the
// schedule's order: reversed under `reversed`; a barrier over every buffer ends the group, one
// over some resources keeps the order across it. A serial encoder's run in order whatever the
// schedule (issue 28 item 3; docs/host_api.md, "Concurrent dispatches").
TEST(CommandBuffer, AConcurrentGroupRunsInTheSchedulesOrder) {
  Harness h;
  auto pso = h.pipeline("test_append_digit");
  auto other = h.buffer(16);
  const auto encode = [&](MTL::DispatchType type, int barrier) {
    return [&, type, barrier](MTL::CommandBuffer* cb, MTL::Buffer* out) {
      MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(type);
      EXPECT_EQ(e->dispatchType(), type);
      e->setComputePipelineState(pso.get());
      e->setBuffer(out, 0, 0);
      for (uint32_t step = 1; step <= 4; ++step) {
        e->setBytes(&step, 4, 1);
        e->dispatchThreads({64, 1, 1}, {64, 1, 1});
        if (step == 2 && barrier == 1) e->memoryBarrier(MTL::BarrierScopeBuffers);
        const MTL::Resource* resources[] = {other.get()};
        if (step == 2 && barrier == 2) e->memoryBarrier(resources, 1);
      }
      e->endEncoding();
    };
  };
  EXPECT_EQ(digits_under(h, "in-order", encode(MTL::DispatchTypeConcurrent, 0)), 1234u);
  EXPECT_EQ(digits_under(h, "reversed", encode(MTL::DispatchTypeConcurrent, 0)), 4321u);
  EXPECT_EQ(digits_under(h, "reversed", encode(MTL::DispatchTypeConcurrent, 1)), 2143u);
  EXPECT_EQ(digits_under(h, "reversed", encode(MTL::DispatchTypeConcurrent, 2)), 2143u);
  EXPECT_EQ(digits_under(h, "reversed", encode(MTL::DispatchTypeSerial, 0)), 1234u);
  // random:SEED: some order of the four, the same for the same seed.
  const uint32_t shuffled = digits_under(h, "random:3", encode(MTL::DispatchTypeConcurrent, 0));
  EXPECT_EQ(digits_under(h, "random:3", encode(MTL::DispatchTypeConcurrent, 0)), shuffled);
  std::string digits = std::to_string(shuffled);
  std::sort(digits.begin(), digits.end());
  EXPECT_EQ(digits, "1234");
  // Two encoders: the second's dispatches follow the first's.
  EXPECT_EQ(digits_under(h, "reversed",
                         [&](MTL::CommandBuffer* cb, MTL::Buffer* out) {
                           encode(MTL::DispatchTypeConcurrent, 0)(cb, out);
                           encode(MTL::DispatchTypeConcurrent, 0)(cb, out);
                         }),
            43214321u);
}

// An indirect command buffer's commands between barriers are a concurrent group too: a command
// with setBarrier waits for those before it.
// test_append_digit's pipeline, made for indirect command buffers.
NS::SharedPtr<MTL::ComputePipelineState> icb_digit_pipeline(Harness& h) {
  auto library = NS::TransferPtr(h.device()->newDefaultLibrary());
  auto function = NS::TransferPtr(library->newFunction("test_append_digit"));
  auto pd = NS::TransferPtr(MTL::ComputePipelineDescriptor::alloc()->init());
  pd->setComputeFunction(function.get());
  pd->setSupportIndirectCommandBuffers(true);
  NS::Error* error = nullptr;
  return NS::TransferPtr(
      h.device()->newComputePipelineState(pd.get(), MTL::PipelineOptionNone, nullptr, &error));
}

NS::SharedPtr<MTL::IndirectCommandBuffer> digit_icb(Harness& h, NS::UInteger size) {
  auto d = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
  d->setCommandTypes(MTL::IndirectCommandTypeConcurrentDispatchThreads);
  d->setMaxKernelBufferBindCount(2);
  return NS::TransferPtr(
      h.device()->newIndirectCommandBuffer(d.get(), size, MTL::ResourceStorageModeShared));
}

TEST(CommandBuffer, IndirectCommandsBetweenBarriersRunInTheSchedulesOrder) {
  Harness h;
  auto pso = icb_digit_pipeline(h);
  ASSERT_TRUE(pso);
  std::vector<NS::SharedPtr<MTL::Buffer>> steps;
  for (uint32_t step = 1; step <= 4; ++step) steps.push_back(h.buffer(std::vector<uint32_t>{step}));
  auto icb = digit_icb(h, 4);
  const auto encode = [&](MTL::CommandBuffer* cb, MTL::Buffer* out) {
    for (NS::UInteger i = 0; i < 4; ++i) {
      MTL::IndirectComputeCommand* c = icb->indirectComputeCommand(i);
      c->setComputePipelineState(pso.get());
      c->setKernelBuffer(out, 0, 0);
      c->setKernelBuffer(steps[i].get(), 0, 1);
      c->concurrentDispatchThreads({64, 1, 1}, {64, 1, 1});
      if (i == 2) c->setBarrier();
    }
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->executeCommandsInBuffer(icb.get(), NS::Range::Make(0, 4));
    e->endEncoding();
  };
  EXPECT_EQ(digits_under(h, "in-order", encode), 1234u);
  EXPECT_EQ(digits_under(h, "reversed", encode), 2143u);
}

// An executeCommandsInBuffer ends a concurrent encoder's group (the direct dispatches before it,
// its commands and those after it are three groups), and an empty command's barrier still
// separates the commands around it.
TEST(CommandBuffer, AnIndirectExecutionEndsAGroupAndAnEmptyCommandsBarrierCounts) {
  Harness h;
  auto direct = h.pipeline("test_append_digit");
  auto pso = icb_digit_pipeline(h);
  ASSERT_TRUE(pso);
  std::vector<NS::SharedPtr<MTL::Buffer>> steps;
  for (uint32_t step = 0; step <= 9; ++step) steps.push_back(h.buffer(std::vector<uint32_t>{step}));
  auto icb = digit_icb(h, 5);
  const auto encode = [&](MTL::CommandBuffer* cb, MTL::Buffer* out) {
    // Commands 0, 1 (digits 3, 4), 2 empty with a barrier, 3, 4 (digits 5, 6).
    const uint32_t digit[] = {3, 4, 0, 5, 6};
    for (NS::UInteger i = 0; i < 5; ++i) {
      MTL::IndirectComputeCommand* c = icb->indirectComputeCommand(i);
      c->reset();
      if (i == 2) {
        c->setBarrier();
        continue;
      }
      c->setComputePipelineState(pso.get());
      c->setKernelBuffer(out, 0, 0);
      c->setKernelBuffer(steps[digit[i]].get(), 0, 1);
      c->concurrentDispatchThreads({64, 1, 1}, {64, 1, 1});
    }
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
    e->setComputePipelineState(direct.get());
    e->setBuffer(out, 0, 0);
    for (uint32_t d : {1u, 2u}) {
      e->setBuffer(steps[d].get(), 0, 1);
      e->dispatchThreads({64, 1, 1}, {64, 1, 1});
    }
    e->executeCommandsInBuffer(icb.get(), NS::Range::Make(0, 5));
    for (uint32_t d : {7u, 8u}) {
      e->setBuffer(steps[d].get(), 0, 1);
      e->dispatchThreads({64, 1, 1}, {64, 1, 1});
    }
    e->endEncoding();
  };
  EXPECT_EQ(digits_under(h, "in-order", encode), 12345678u);
  EXPECT_EQ(digits_under(h, "reversed", encode), 21436587u);
}

// memoryBarrier is encoding: after endEncoding it is a misuse, as a dispatch is.
TEST(CommandBuffer, MemoryBarrierAfterEndEncodingIsAMisuse) {
  Harness h;
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
  e->endEncoding();
  e->memoryBarrier(MTL::BarrierScopeBuffers);
  cb->commit();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_EQ(Harness::count(cb, report::CheckId::api_misuse), 1u) << Harness::reports(cb);
  EXPECT_EQ(cb->computeCommandEncoder()->dispatchType(), MTL::DispatchTypeSerial);
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
  const metalsim::SchedulePolicy device_default = h.device()->executionOptions().schedule;
  auto encode = [&](MTL::CommandBuffer* cb) {
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setBuffer(out.get(), 0, 0);
    enc->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
    enc->endEncoding();
  };
  MTL::CommandBuffer* reversed = queue->commandBuffer();
  metalsim::ExecutionOptions options = reversed->executionOptions();
  options.schedule = {metalsim::ScheduleKind::reversed, 0};
  reversed->setExecutionOptions(options);
  options.schedule = {metalsim::ScheduleKind::in_order, 0};
  auto* descriptor = MTL::CommandBufferDescriptor::alloc()->init();
  descriptor->setExecutionOptions(options);
  MTL::CommandBuffer* in_order = queue->commandBuffer(descriptor);
  descriptor->release();
  encode(reversed);
  encode(in_order);
  // Waited for before reading: with the harness's queue and this one, a reversed schedule holds
  // a committed buffer until the host waits (gpu_timeline.h), as a GPU runs it later.
  reversed->commit();
  reversed->waitUntilCompleted();
  EXPECT_EQ(*static_cast<const uint32_t*>(out->contents()), 0u);  // lane 0 ran last
  in_order->commit();
  in_order->waitUntilCompleted();
  EXPECT_EQ(*static_cast<const uint32_t*>(out->contents()), 63u);  // lane 63 ran last
  EXPECT_EQ(h.device()->executionOptions().schedule, device_default);
}

// Under a reversed schedule with two queues, committed buffers are held until the host waits
// (gpu_timeline.h). A queue released without waiting runs what it holds first, and a buffer
// queued behind a held one, whose last reference the program gave up, still runs: the timeline
// retains every committed buffer until it finishes (it crashed before it did).
// Runs one command buffer of test_last_lane_wins on `queue` with a completed handler, inside an
// autorelease pool; whether the handler ran.
bool run_with_handler(MTL::CommandQueue* queue, MTL::ComputePipelineState* pso, MTL::Buffer* out) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  bool handled = false;
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso);
  enc->setBuffer(out, 0, 0);
  enc->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
  enc->endEncoding();
  cb->addCompletedHandler([&handled](MTL::CommandBuffer*) { handled = true; });
  cb->commit();
  cb->waitUntilCompleted();
  const bool ok = cb->status() == MTL::CommandBufferStatusCompleted;
  pool->release();
  return ok && handled;
}

// A thread's thread-local destructors run in the reverse order of their construction: one made
// before metalsim's own thread-locals runs after they are gone, and may still commit (MLX keeps
// its command encoders in a thread-local map, which commits as it is destroyed: a thread of
// std::async in MLX's `test scatter_prod with NaN does not hang` corrupted the heap that way).
// metalsim's thread-locals that such a commit uses stay usable.
TEST(CommandBuffer, ACommitFromAThreadLocalDestructorAfterMetalsimsOwnIsSafe) {
  Harness h;
  auto out = h.buffer(std::vector<uint32_t>{77});
  auto pso = h.pipeline("test_last_lane_wins");
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  static bool late_ran = false;  // written by the thread's last destructor
  struct CommitsAtExit {
    MTL::CommandQueue* queue;
    MTL::ComputePipelineState* pso;
    MTL::Buffer* out;
    ~CommitsAtExit() { late_ran = run_with_handler(queue, pso, out); }
  };
  std::thread thread([&] {
    thread_local CommitsAtExit late{queue.get(), pso.get(), out.get()};  // made first
    (void)late;
    // metalsim's thread-locals, made after it: a handler's record, an autorelease pool.
    EXPECT_TRUE(run_with_handler(queue.get(), pso.get(), out.get()));
  });
  thread.join();
  EXPECT_TRUE(late_ran);
}

TEST(CommandBuffer, AQueueReleasedWithoutWaitingRunsWhatItHolds) {
  Harness h;
  auto out = h.buffer(std::vector<uint32_t>{77});
  auto pso = h.pipeline("test_last_lane_wins");
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  metalsim::ExecutionOptions options = h.device()->executionOptions();
  options.schedule = {metalsim::ScheduleKind::reversed, 0};
  for (metalsim::ScheduleKind second_kind :
       {metalsim::ScheduleKind::reversed, metalsim::ScheduleKind::in_order}) {
    auto* descriptor = MTL::CommandBufferDescriptor::alloc()->init();
    descriptor->setExecutionOptions(options);
    auto first = NS::RetainPtr(queue->commandBuffer(descriptor));
    metalsim::ExecutionOptions second_options = options;
    second_options.schedule = {second_kind, 0};
    descriptor->setExecutionOptions(second_options);
    auto second = NS::RetainPtr(queue->commandBuffer(descriptor));
    descriptor->release();
    for (MTL::CommandBuffer* cb : {first.get(), second.get()}) {
      MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
      enc->setComputePipelineState(pso.get());
      enc->setBuffer(out.get(), 0, 0);
      enc->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
      enc->endEncoding();
    }
    *static_cast<uint32_t*>(out->contents()) = 77;
    first->commit();
    second->commit();
    second.reset();  // the program's last reference to the queued buffer
    if (second_kind == metalsim::ScheduleKind::in_order) queue.reset();  // runs both
    else first->waitUntilCompleted();                                    // runs both
    EXPECT_EQ(first->status(), MTL::CommandBufferStatusCompleted);
    const uint32_t expected = second_kind == metalsim::ScheduleKind::in_order ? 63u : 0u;
    EXPECT_EQ(*static_cast<const uint32_t*>(out->contents()), expected);
  }
}

// waitUntilCompleted on a buffer that is not committed yet, while the buffer whose completed
// handler commits it is still running on the timeline's own thread (held under a schedule with
// two queues, then released there): the wait lasts until that handler has committed it and it has
// run. It returned at once before, with the buffer not even committed (a flaky PlantedQueues
// case on a loaded machine).
TEST(CommandBuffer, WaitingOnABufferAHandlerWillCommitWaitsForIt) {
  Harness h;
  auto out = h.buffer(std::vector<uint32_t>{77});
  auto pso = h.pipeline("test_last_lane_wins");
  auto first_queue = NS::TransferPtr(h.device()->newCommandQueue());
  auto second_queue = NS::TransferPtr(h.device()->newCommandQueue());
  metalsim::ExecutionOptions options = h.device()->executionOptions();
  options.schedule = {metalsim::ScheduleKind::reversed, 0};
  auto* descriptor = MTL::CommandBufferDescriptor::alloc()->init();
  descriptor->setExecutionOptions(options);
  MTL::CommandBuffer* first = first_queue->commandBuffer(descriptor);
  MTL::CommandBuffer* second = second_queue->commandBuffer(descriptor);
  descriptor->release();
  for (MTL::CommandBuffer* cb : {first, second}) {
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setBuffer(out.get(), 0, 0);
    enc->dispatchThreadgroups({1, 1, 1}, {64, 1, 1});
    enc->endEncoding();
  }
  first->addCompletedHandler([second](MTL::CommandBuffer*) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // still running when waited on
    second->commit();
  });
  first->commit();
  // Past the hold (2 ms): the timeline's thread has taken the first buffer and runs it.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  second->waitUntilCompleted();
  EXPECT_EQ(second->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(second);
  first->waitUntilCompleted();
  EXPECT_EQ(first->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(first);
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
