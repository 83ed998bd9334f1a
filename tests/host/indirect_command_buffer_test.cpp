// Indirect command buffers (MTL::IndirectCommandBuffer for compute): commands recorded once run
// like the same dispatches encoded directly, bit for bit, as often as they are executed; they
// are read when the command buffer runs; and every mistake fails the command buffer with the
// same validation as a direct dispatch, prefixed with the command that made it.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "kernels/spec/inputs.h"
#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// y[i] = y[i] * a + x[i]: float rounding at every step, so both the order of the dispatches
// and each one's arguments show in the bits.
void scale_add(const BoundArgs& args, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  const float a = *buffer<const float>(args, 2);
  float* y = buffer<float>(args, 1);
  y[i] = y[i] * a + buffer<const float>(args, 0)[i];
}
HandKernel scale_add_kernel("test_icb_scale_add",
                            {device_arg("x", 0, 4, true), device_arg("y", 1, 4),
                             constant_arg("a", 2, 4)},
                            &lane_loop<scale_add>);

constexpr uint32_t kCount = 256;  // 4 threadgroups of 64: the kernel has no bound check
const MTL::Size kGroups{4, 1, 1}, kGroup{64, 1, 1}, kThreads{kCount, 1, 1};

class IndirectCommandBuffer : public ::testing::Test {
 protected:
  Harness h;
  spec::InputGenerator gen{17};
  NS::SharedPtr<MTL::ComputePipelineState> pso = icb_pipeline("test_icb_scale_add");
  NS::SharedPtr<MTL::CommandQueue> queue = NS::TransferPtr(h.device()->newCommandQueue());
  NS::SharedPtr<MTL::Buffer> x = h.buffer(gen.uniform_vector<float>(kCount, -1, 1));
  std::vector<float> start = gen.uniform_vector<float>(kCount, -1, 1);
  // A factor per command, each in a buffer of its own (what the commands bind).
  std::vector<NS::SharedPtr<MTL::Buffer>> factors = {h.buffer(std::vector<float>{1.5f}),
                                                     h.buffer(std::vector<float>{-0.75f}),
                                                     h.buffer(std::vector<float>{3.25f})};

  // A pipeline an indirect command buffer may use (Metal's rule).
  NS::SharedPtr<MTL::ComputePipelineState> icb_pipeline(const char* kernel) {
    auto library = NS::TransferPtr(h.device()->newDefaultLibrary());
    auto function = NS::TransferPtr(library->newFunction(kernel));
    auto d = NS::TransferPtr(MTL::ComputePipelineDescriptor::alloc()->init());
    d->setComputeFunction(function.get());
    d->setSupportIndirectCommandBuffers(true);
    NS::Error* error = nullptr;
    auto state = NS::TransferPtr(
        h.device()->newComputePipelineState(d.get(), MTL::PipelineOptionNone, nullptr, &error));
    EXPECT_TRUE(state) << kernel;
    return state;
  }

  NS::SharedPtr<MTL::IndirectCommandBuffer> make_icb(NS::UInteger size,
                                                     NS::UInteger max_bindings = 3,
                                                     bool inherit_pipeline = false,
                                                     bool inherit_buffers = false) {
    auto d = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
    d->setCommandTypes(MTL::IndirectCommandType(MTL::IndirectCommandTypeConcurrentDispatch |
                                                MTL::IndirectCommandTypeConcurrentDispatchThreads));
    d->setInheritPipelineState(inherit_pipeline);
    d->setInheritBuffers(inherit_buffers);
    d->setMaxKernelBufferBindCount(max_bindings);
    auto b = NS::TransferPtr(
        h.device()->newIndirectCommandBuffer(d.get(), size, MTL::ResourceStorageModeShared));
    b->setLabel(NS::String::string("test icb"));
    return b;
  }

  // Command i: y = y * factor[i % 3] + x; odd commands dispatch by threads, even ones by
  // threadgroups.
  void record(MTL::IndirectCommandBuffer* icb, MTL::Buffer* y) {
    for (NS::UInteger i = 0; i < icb->size(); ++i) {
      MTL::IndirectComputeCommand* c = icb->indirectComputeCommand(i);
      c->setComputePipelineState(pso.get());
      c->setKernelBuffer(x.get(), 0, 0);
      c->setKernelBuffer(y, 0, 1);
      c->setKernelBuffer(factors[i % factors.size()].get(), 0, 2);
      if (i % 2 == 0) c->concurrentDispatchThreadgroups(kGroups, kGroup);
      else c->concurrentDispatchThreads(kThreads, kGroup);
      c->setBarrier();
    }
  }

  NS::SharedPtr<MTL::Buffer> fresh_y() { return h.buffer(start); }

  MTL::CommandBuffer* execute(MTL::IndirectCommandBuffer* icb, NS::Range range,
                              const std::function<void(MTL::ComputeCommandEncoder*)>& before = {}) {
    MTL::CommandBuffer* cb = queue->commandBuffer();
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    if (before) before(e);
    e->executeCommandsInBuffer(icb, range);
    e->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    return cb;
  }

  // Commands first .. first + count - 1 encoded directly, into y.
  MTL::CommandBuffer* direct(MTL::Buffer* y, NS::UInteger first, NS::UInteger count) {
    MTL::CommandBuffer* cb = queue->commandBuffer();
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->setComputePipelineState(pso.get());
    e->setBuffer(x.get(), 0, 0);
    e->setBuffer(y, 0, 1);
    for (NS::UInteger i = first; i < first + count; ++i) {
      e->setBuffer(factors[i % factors.size()].get(), 0, 2);
      if (i % 2 == 0) e->dispatchThreadgroups(kGroups, kGroup);
      else e->dispatchThreads(kThreads, kGroup);
    }
    e->endEncoding();
    cb->commit();
    return cb;
  }

  // The one report of a failed command buffer.
  static std::string failure(MTL::CommandBuffer* cb) {
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
    EXPECT_EQ(cb->reports().size(), 1u) << Harness::reports(cb);
    return cb->reports().empty() ? "" : cb->reports()[0].message;
  }
};

bool same_bits(const MTL::Buffer* a, const MTL::Buffer* b) {
  return a->length() == b->length() && std::memcmp(a->contents(), b->contents(), a->length()) == 0;
}

bool changed_everywhere(const MTL::Buffer* y, const std::vector<float>& start) {
  const auto* v = static_cast<const float*>(y->contents());
  for (size_t i = 0; i < start.size(); ++i)
    if (std::isnan(v[i]) || v[i] == start[i]) return false;
  return true;
}

TEST_F(IndirectCommandBuffer, RecordedCommandsEqualDirectEncodingBitForBit) {
  auto icb = make_icb(7);
  auto y_icb = fresh_y(), y_direct = fresh_y();
  record(icb.get(), y_icb.get());
  MTL::CommandBuffer* cb = execute(icb.get(), NS::Range::Make(0, 7));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  EXPECT_EQ(cb->encodedDispatchCount(), 0u);
  MTL::CommandBuffer* d = direct(y_direct.get(), 0, 7);
  ASSERT_EQ(d->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(d);
  EXPECT_TRUE(changed_everywhere(y_icb.get(), start));
  EXPECT_TRUE(same_bits(y_icb.get(), y_direct.get()));
}

// Recorded once, executed again and again (and a sub-range), each time as direct encoding.
TEST_F(IndirectCommandBuffer, ReplaysAndSubRangesEqualDirectEncoding) {
  auto icb = make_icb(6);
  auto y_icb = fresh_y(), y_direct = fresh_y();
  record(icb.get(), y_icb.get());
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(execute(icb.get(), NS::Range::Make(0, 6))->status(),
              MTL::CommandBufferStatusCompleted);
    direct(y_direct.get(), 0, 6);
  }
  ASSERT_EQ(execute(icb.get(), NS::Range::Make(2, 3))->status(), MTL::CommandBufferStatusCompleted);
  direct(y_direct.get(), 2, 3);
  EXPECT_TRUE(same_bits(y_icb.get(), y_direct.get()));
}

// Indirect executions and direct dispatches of one encoder run in the order they were encoded.
TEST_F(IndirectCommandBuffer, RunsInEncodingOrderAmongDirectDispatches) {
  auto icb = make_icb(2);
  auto y_mixed = fresh_y(), y_direct = fresh_y();
  record(icb.get(), y_mixed.get());  // factors 0, 1
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
  e->setComputePipelineState(pso.get());
  e->setBuffer(x.get(), 0, 0);
  e->setBuffer(y_mixed.get(), 0, 1);
  e->setBuffer(factors[2].get(), 0, 2);
  e->dispatchThreadgroups(kGroups, kGroup);                      // factor 2
  e->executeCommandsInBuffer(icb.get(), NS::Range::Make(0, 2));  // factors 0, 1
  e->dispatchThreadgroups(kGroups, kGroup);                      // factor 2
  e->endEncoding();
  cb->commit();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  direct(y_direct.get(), 2, 1);
  direct(y_direct.get(), 0, 2);
  direct(y_direct.get(), 2, 1);
  EXPECT_TRUE(same_bits(y_mixed.get(), y_direct.get()));
}

// The GPU reads the commands when it runs them: a change made after executeCommandsInBuffer
// but before commit is what runs; a reset command does nothing.
TEST_F(IndirectCommandBuffer, CommandsAreReadAtCommitAndResetOnesDoNothing) {
  auto icb = make_icb(3);
  auto y_icb = fresh_y(), y_direct = fresh_y();
  record(icb.get(), y_icb.get());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
  e->executeCommandsInBuffer(icb.get(), NS::Range::Make(0, 3));
  e->endEncoding();
  icb->indirectComputeCommand(0)->setKernelBuffer(factors[2].get(), 0, 2);
  icb->reset(NS::Range::Make(1, 1));
  cb->commit();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  direct(y_direct.get(), 2, 1);  // command 0, now with factor 2
  direct(y_direct.get(), 2, 1);  // command 2 (command 1 was reset)
  EXPECT_TRUE(same_bits(y_icb.get(), y_direct.get()));
  EXPECT_FALSE(icb->command(1).hasDispatch());
  EXPECT_TRUE(icb->command(2).hasBarrier());
}

// With inheritance, the pipeline state and buffers come from the encoder at the call.
TEST_F(IndirectCommandBuffer, InheritedPipelineAndBuffersComeFromTheEncoder) {
  auto icb = make_icb(2, 0, true, true);
  auto y_icb = fresh_y(), y_direct = fresh_y();
  for (NS::UInteger i = 0; i < 2; ++i)
    icb->indirectComputeCommand(i)->concurrentDispatchThreadgroups(kGroups, kGroup);
  MTL::CommandBuffer* cb = execute(icb.get(), NS::Range::Make(0, 2), [&](auto* e) {
    e->setComputePipelineState(pso.get());
    e->setBuffer(x.get(), 0, 0);
    e->setBuffer(y_icb.get(), 0, 1);
    e->setBuffer(factors[1].get(), 0, 2);
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  direct(y_direct.get(), 1, 1);
  direct(y_direct.get(), 1, 1);
  EXPECT_TRUE(same_bits(y_icb.get(), y_direct.get()));
}

// ---------------------------------------------------------------- errors

// A missing binding is the validator's own report, naming the command.
TEST_F(IndirectCommandBuffer, AnUnboundBufferIsTheDirectPathsErrorNamingTheCommand) {
  auto icb = make_icb(3);
  auto y = fresh_y();
  record(icb.get(), y.get());
  icb->reset(NS::Range::Make(1, 1));
  MTL::IndirectComputeCommand* c = icb->indirectComputeCommand(1);
  c->setComputePipelineState(pso.get());
  c->setKernelBuffer(x.get(), 0, 0);
  c->setKernelBuffer(y.get(), 0, 1);  // no factor at 2
  c->concurrentDispatchThreadgroups(kGroups, kGroup);
  MTL::CommandBuffer* cb = execute(icb.get(), NS::Range::Make(0, 3));
  const std::string why = failure(cb);
  EXPECT_EQ(cb->reports()[0].check, report::CheckId::api_unbound_buffer);
  EXPECT_NE(why.find("indirect command buffer 'test icb' command 1: argument 'a' [[buffer(2)]]"),
            std::string::npos)
      << why;
  // The direct encoder's message for the same mistake, after the prefix.
  MTL::CommandBuffer* d = h.run(
      "test_icb_scale_add",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(x.get(), 0, 0);
        e->setBuffer(y.get(), 0, 1);
      },
      kGroups, kGroup);
  ASSERT_EQ(d->reports().size(), 1u);
  EXPECT_EQ(why, "indirect command buffer 'test icb' command 1: " + d->reports()[0].message);
  // Command 0 ran, command 2 did not.
  EXPECT_NE(std::memcmp(y->contents(), start.data(), 4), 0);
}

TEST_F(IndirectCommandBuffer, TooManyThreadsPerThreadgroupIsTheLimitCheck) {
  auto icb = make_icb(1);
  auto y = fresh_y();
  record(icb.get(), y.get());
  icb->indirectComputeCommand(0)->concurrentDispatchThreadgroups(kGroups, {2048, 1, 1});
  MTL::CommandBuffer* cb = execute(icb.get(), NS::Range::Make(0, 1));
  const std::string why = failure(cb);
  EXPECT_EQ(cb->reports()[0].check, report::CheckId::limit_threads);
  EXPECT_NE(why.find("command 0: threads per threadgroup (2048,1,1)"), std::string::npos) << why;
  EXPECT_EQ(std::memcmp(y->contents(), start.data(), kCount * 4), 0);  // nothing ran
}

TEST_F(IndirectCommandBuffer, AnIndexPastMaxKernelBufferBindCountIsRejected) {
  auto icb = make_icb(1, 2);  // bindings 0 and 1 only
  auto y = fresh_y();
  record(icb.get(), y.get());
  const std::string why = failure(execute(icb.get(), NS::Range::Make(0, 1)));
  EXPECT_NE(why.find("command 0: setKernelBuffer(buffer, 0, 2): index 2 is not below the "
                     "descriptor's maxKernelBufferBindCount of 2"),
            std::string::npos)
      << why;
}

TEST_F(IndirectCommandBuffer, ACommandTypeTheDescriptorLacksIsRejected) {
  auto d = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
  d->setCommandTypes(MTL::IndirectCommandTypeConcurrentDispatch);
  d->setMaxKernelBufferBindCount(3);
  auto icb = NS::TransferPtr(h.device()->newIndirectCommandBuffer(d.get(), 2, {}));
  auto y = fresh_y();
  record(icb.get(), y.get());  // command 1 dispatches by threads
  const std::string why = failure(execute(icb.get(), NS::Range::Make(0, 2)));
  EXPECT_NE(why.find("indirect command buffer command 1: concurrentDispatchThreads on a buffer "
                     "whose descriptor's commandTypes lacks "
                     "IndirectCommandTypeConcurrentDispatchThreads"),
            std::string::npos)
      << why;
}

TEST_F(IndirectCommandBuffer, SettingWhatTheDescriptorInheritsIsRejected) {
  auto icb = make_icb(1, 3, true, false);
  auto y = fresh_y();
  record(icb.get(), y.get());
  const std::string why = failure(execute(icb.get(), NS::Range::Make(0, 1)));
  EXPECT_NE(why.find("setComputePipelineState on a command whose descriptor inherits the "
                     "pipeline state"),
            std::string::npos)
      << why;
}

TEST_F(IndirectCommandBuffer, APipelineNotMadeForIndirectCommandBuffersIsRejected) {
  auto icb = make_icb(1);
  auto y = fresh_y();
  record(icb.get(), y.get());
  auto plain = h.pipeline("test_icb_scale_add");  // newComputePipelineState(function)
  EXPECT_FALSE(plain->supportIndirectCommandBuffers());
  icb->indirectComputeCommand(0)->setComputePipelineState(plain.get());
  const std::string why = failure(execute(icb.get(), NS::Range::Make(0, 1)));
  EXPECT_NE(why.find("command 0: the pipeline of kernel 'test_icb_scale_add' was not made for "
                     "indirect command buffers"),
            std::string::npos)
      << why;
  // Inherited from the encoder, the same rule.
  auto inheriting = make_icb(1, 3, true, false);
  MTL::IndirectComputeCommand* c = inheriting->indirectComputeCommand(0);
  c->setKernelBuffer(x.get(), 0, 0);
  c->setKernelBuffer(y.get(), 0, 1);
  c->setKernelBuffer(factors[0].get(), 0, 2);
  c->concurrentDispatchThreadgroups(kGroups, kGroup);
  const std::string inherited =
      failure(execute(inheriting.get(), NS::Range::Make(0, 1), [&](MTL::ComputeCommandEncoder* e) {
        e->setComputePipelineState(plain.get());
      }));
  EXPECT_NE(inherited.find("inheriting the encoder's pipeline: the pipeline of kernel "),
            std::string::npos)
      << inherited;
}

TEST_F(IndirectCommandBuffer, ADescriptorWithoutComputeTypesFailsItsExecution) {
  auto d = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
  d->setCommandTypes(MTL::IndirectCommandTypeDraw);
  auto icb = NS::TransferPtr(h.device()->newIndirectCommandBuffer(d.get(), 1, {}));
  const std::string why = failure(execute(icb.get(), NS::Range::Make(0, 1)));
  EXPECT_NE(why.find("commandTypes has no compute type"), std::string::npos) << why;
}

TEST_F(IndirectCommandBuffer, ACommandPastTheSizeIsRemembered) {
  auto icb = make_icb(2);
  auto y = fresh_y();
  record(icb.get(), y.get());
  icb->indirectComputeCommand(2)->setBarrier();
  const std::string why = failure(execute(icb.get(), NS::Range::Make(0, 2)));
  EXPECT_NE(why.find("indirectComputeCommand(2) is past its size of 2"), std::string::npos) << why;
  EXPECT_EQ(std::memcmp(y->contents(), start.data(), kCount * 4), 0);
}

TEST_F(IndirectCommandBuffer, ARangePastTheSizeFailsAtTheEncoder) {
  auto icb = make_icb(2);
  auto y = fresh_y();
  record(icb.get(), y.get());
  const std::string why = failure(execute(icb.get(), NS::Range::Make(1, 2)));
  EXPECT_NE(why.find("executeCommandsInBuffer: commands 1 + 2 are past the 2 of indirect "
                     "command buffer 'test icb'"),
            std::string::npos)
      << why;
  EXPECT_EQ(std::memcmp(y->contents(), start.data(), kCount * 4), 0);
}

}  // namespace
}  // namespace metalsim::testing
