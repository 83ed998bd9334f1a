// race.dispatch (issue 28 item 3): dispatches Metal may run at the same time. A concurrent
// encoder's dispatches between memoryBarrier calls, and an indirect command buffer's commands
// between setBarrier calls, form a concurrent group: with `race` on, a device location one member
// writes and another reads or writes is reported, naming both dispatches, kernels, lines and
// threads; a barrier between them (over every buffer, or over that one) orders them; atomics race
// with nothing. Under the reversed schedule a group runs backwards, so a missing barrier changes
// the result without the race check too. The planted rows (planted_expectations.h) run the two
// missing barriers through the table; the controls and the order are here.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/spec/inputs.h"
#include "planted_support.h"
#include "simt/engine/dispatch.h"

namespace metalsim::testing::planted {
namespace {

constexpr uint32_t kCount = 256;  // 4 threadgroups of 64
const MTL::Size kGrid{kCount, 1, 1}, kGroup{64, 1, 1};

// How the consumer follows the producer.
enum class Between {
  nothing,         // a concurrent encoder, no barrier; an ICB command without setBarrier
  buffers,         // memoryBarrier(BarrierScopeBuffers); setBarrier on the consumer
  mid,             // memoryBarrier over the buffer the two share
  other,           // memoryBarrier over another buffer only
  textures,        // memoryBarrier(BarrierScopeTextures): orders no buffer
  serial_encoder,  // a serial encoder, no barrier
};

// A producer (mid = in * 2) and a consumer (out = mid + 1) in one command buffer, encoded
// directly or as two commands of an indirect command buffer. Keeps the queue (which keeps the
// command buffers) and the buffers.
class Pair {
 public:
  explicit Pair(Harness& h, bool indirect = false)
      : h_(h),
        indirect_(indirect),
        queue_(NS::TransferPtr(h.device()->newCommandQueue())),
        in_(h.buffer(spec::InputGenerator(28).uniform_vector<float>(kCount, -4, 4))),
        mid_(h.buffer(kCount * 4)),
        out_(h.buffer(kCount * 4)) {
    const char* producer = indirect ? "planted_icb_producer" : "planted_dispatch_producer";
    const char* consumer = indirect ? "planted_icb_consumer" : "planted_dispatch_consumer";
    producer_ = pipeline(producer);
    consumer_ = pipeline(consumer);
  }

  const MTL::CommandBuffer* run(Between between) {
    std::memset(mid_->contents(), 0, mid_->length());
    std::memset(out_->contents(), 0, out_->length());
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    cb->setExecutionOptions(h_.options());
    if (indirect_) run_indirect(cb, between);
    else run_direct(cb, between);
    cb->commit();
    cb->waitUntilCompleted();
    return cb;
  }

  // out = in * 2 + 1 everywhere: the consumer saw the producer's writes.
  bool ordered_result() const { return consumer_saw_producer(*in_, *out_, kCount); }
  // out = 1 everywhere: the consumer ran before the producer.
  bool reversed_result() const {
    const auto* out = static_cast<const float*>(out_->contents());
    for (uint32_t i = 0; i < kCount; ++i)
      if (out[i] != 1.0f) return false;
    return true;
  }

 private:
  NS::SharedPtr<MTL::ComputePipelineState> pipeline(const char* kernel) {
    auto library = NS::TransferPtr(h_.device()->newDefaultLibrary());
    auto function = NS::TransferPtr(library->newFunction(kernel));
    auto d = NS::TransferPtr(MTL::ComputePipelineDescriptor::alloc()->init());
    d->setComputeFunction(function.get());
    d->setSupportIndirectCommandBuffers(true);
    NS::Error* error = nullptr;
    auto state = NS::TransferPtr(
        h_.device()->newComputePipelineState(d.get(), MTL::PipelineOptionNone, nullptr, &error));
    EXPECT_TRUE(state) << kernel;
    return state;
  }

  void run_direct(MTL::CommandBuffer* cb, Between between) {
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(
        between == Between::serial_encoder ? MTL::DispatchTypeSerial : MTL::DispatchTypeConcurrent);
    e->setComputePipelineState(producer_.get());
    e->setBuffer(in_.get(), 0, 0);
    e->setBuffer(mid_.get(), 0, 1);
    e->dispatchThreads(kGrid, kGroup);
    const MTL::Resource* mid[] = {mid_.get()};
    const MTL::Resource* other[] = {in_.get(), out_.get()};
    switch (between) {
      case Between::buffers: e->memoryBarrier(MTL::BarrierScopeBuffers); break;
      case Between::mid: e->memoryBarrier(mid, 1); break;
      case Between::other: e->memoryBarrier(other, 2); break;
      case Between::textures: e->memoryBarrier(MTL::BarrierScopeTextures); break;
      default: break;
    }
    e->setComputePipelineState(consumer_.get());
    e->setBuffer(mid_.get(), 0, 0);
    e->setBuffer(out_.get(), 0, 1);
    e->dispatchThreads(kGrid, kGroup);
    e->endEncoding();
  }

  void run_indirect(MTL::CommandBuffer* cb, Between between) {
    auto d = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
    d->setCommandTypes(MTL::IndirectCommandTypeConcurrentDispatch);
    d->setMaxKernelBufferBindCount(2);
    icb_ = NS::TransferPtr(
        h_.device()->newIndirectCommandBuffer(d.get(), 2, MTL::ResourceStorageModeShared));
    icb_->setLabel(NS::String::string("planted"));
    MTL::IndirectComputeCommand* c = icb_->indirectComputeCommand(0);
    c->setComputePipelineState(producer_.get());
    c->setKernelBuffer(in_.get(), 0, 0);
    c->setKernelBuffer(mid_.get(), 0, 1);
    c->concurrentDispatchThreadgroups({kCount / 64, 1, 1}, kGroup);
    c = icb_->indirectComputeCommand(1);
    c->setComputePipelineState(consumer_.get());
    c->setKernelBuffer(mid_.get(), 0, 0);
    c->setKernelBuffer(out_.get(), 0, 1);
    c->concurrentDispatchThreadgroups({kCount / 64, 1, 1}, kGroup);
    if (between == Between::buffers) c->setBarrier();
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->executeCommandsInBuffer(icb_.get(), NS::Range::Make(0, 2));
    e->endEncoding();
  }

  Harness& h_;
  bool indirect_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  NS::SharedPtr<MTL::Buffer> in_, mid_, out_;
  NS::SharedPtr<MTL::ComputePipelineState> producer_, consumer_;
  NS::SharedPtr<MTL::IndirectCommandBuffer> icb_;
};

bool race_dispatch_implemented() {
  return report::check_implemented(report::CheckId::race_dispatch);
}

const report::Report* find(const MTL::CommandBuffer* cb, report::CheckId id) {
  for (const report::Report& r : cb->reports())
    if (r.check == id) return &r;
  return nullptr;
}

// The row of the table: the missing barrier, in order, with `race` on (the table sets it).
Outcome missing_barrier(Harness& h, bool indirect) {
  Pair pair(h, indirect);
  return outcome_of(pair.run(Between::nothing));
}

// The report names both dispatches, kernels, lines and threads; under the reversed schedule the
// producer runs second and its write is the one reported, against the consumer's read.
TEST(PlantedDispatch, TheReportNamesBothDispatchesInEitherOrder) {
  if (!race_dispatch_implemented()) GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  const uint32_t consumer_line = marker_line("race_dispatch.metal", "planted_dispatch_consumer");
  const uint32_t producer_line =
      marker_line("race_dispatch.metal", "planted_dispatch_consumer", "PLANT2");
  for (const char* schedule : {"in-order", "reversed"}) {
    Harness h;
    h.options().workers = 1;
    h.options().checks.race = true;
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
    Pair pair(h);
    const MTL::CommandBuffer* cb = pair.run(Between::nothing);
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError) << schedule;
    const report::Report* r = find(cb, report::CheckId::race_dispatch);
    ASSERT_NE(r, nullptr) << schedule << "\n" << Harness::reports(cb);
    const std::string text = r->format();
    const bool reversed = std::string(schedule) == "reversed";
    EXPECT_EQ(r->kernel, reversed ? "planted_dispatch_producer" : "planted_dispatch_consumer")
        << text;
    EXPECT_EQ(r->site.line, reversed ? producer_line : consumer_line) << text;
    EXPECT_EQ(r->other_site.line, reversed ? consumer_line : producer_line) << text;
    const std::string other = reversed ? "planted_dispatch_consumer" : "planted_dispatch_producer";
    EXPECT_NE(text.find("kernel '" + other + "'"), std::string::npos) << text;
    EXPECT_NE(text.find(reversed ? "write by dispatch 0 conflicts with a read by dispatch 1"
                                 : "read by dispatch 1 conflicts with a write by dispatch 0"),
              std::string::npos)
        << text;
    // The reversed schedule reverses the threadgroups and lanes too: the last thread is first.
    const uint32_t thread = reversed ? 63 : 0, threadgroup = reversed ? 3 : 0;
    const std::string position = "thread (" + std::to_string(thread) + ",0,0) of threadgroup (" +
                                 std::to_string(threadgroup) + ",0,0) of dispatch " +
                                 (reversed ? "1" : "0");
    EXPECT_EQ(r->other_lanes.find(position), 0u) << text;
    EXPECT_EQ(r->lane.thread, (metalsim::Size3{thread, 0, 0})) << text;
    EXPECT_EQ(r->lane.threadgroup, (metalsim::Size3{threadgroup, 0, 0})) << text;
    EXPECT_EQ(r->memory, reversed ? "buffer(1) 'mid'" : "buffer(0) 'mid'") << text;
  }
}

// A barrier between the two orders them: no report, the producer's result reaches the consumer,
// whatever the schedule. So does a serial encoder. A barrier over other buffers, or over textures
// only, does not order `mid`.
TEST(PlantedDispatch, ABarrierOrdersTheDispatches) {
  if (!race_dispatch_implemented()) GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  for (const char* schedule : {"in-order", "reversed", "random:7"}) {
    for (Between between : {Between::buffers, Between::mid, Between::serial_encoder}) {
      Harness h;
      h.options().workers = 1;
      h.options().checks.race = true;
      ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
      Pair pair(h);
      const MTL::CommandBuffer* cb = pair.run(between);
      EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted)
          << schedule << " " << int(between) << "\n"
          << Harness::reports(cb);
      EXPECT_TRUE(pair.ordered_result()) << schedule << " " << int(between);
    }
    Harness h;
    h.options().workers = 1;
    h.options().checks.race = true;
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
    Pair indirect(h, true);
    const MTL::CommandBuffer* cb = indirect.run(Between::buffers);
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
    EXPECT_TRUE(indirect.ordered_result()) << schedule;
  }
  for (Between between : {Between::other, Between::textures}) {
    Harness h;
    h.options().workers = 1;
    h.options().checks.race = true;
    Pair pair(h);
    const MTL::CommandBuffer* cb = pair.run(between);
    EXPECT_NE(find(cb, report::CheckId::race_dispatch), nullptr) << int(between) << "\n"
                                                                 << Harness::reports(cb);
  }
}

// Textures: a dispatch writes a texture, the next reads it, in one concurrent group. Without a
// barrier that is race.dispatch on the texture's pixels; memoryBarrier(BarrierScopeTextures), or
// one listing the texture, orders them, and a barrier over every buffer ends the group; a
// barrier over another buffer does not order the texture.
TEST(PlantedDispatch, ATextureBarrierOrdersTextures) {
  if (!race_dispatch_implemented()) GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  enum class Barrier { none, textures, texture, buffers, other };
  for (Barrier between :
       {Barrier::none, Barrier::textures, Barrier::texture, Barrier::buffers, Barrier::other}) {
    Harness h;
    h.options().workers = 1;
    h.options().checks.race = true;
    auto queue = NS::TransferPtr(h.device()->newCommandQueue());
    MTL::TextureDescriptor* d =
        MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatRGBA32Float, 16, 16, false);
    d->setUsage(MTL::TextureUsage(MTL::TextureUsageShaderRead | MTL::TextureUsageShaderWrite));
    auto texture = NS::TransferPtr(h.device()->newTexture(d));
    ASSERT_TRUE(texture);
    auto out = h.buffer(256 * 4);
    auto other = h.buffer(16);
    auto write = h.pipeline("planted_dispatch_texture_write");
    auto read = h.pipeline("planted_dispatch_texture_read");
    MTL::CommandBuffer* cb = queue->commandBuffer();
    cb->setExecutionOptions(h.options());
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
    e->setComputePipelineState(write.get());
    e->setTexture(texture.get(), 0);
    e->dispatchThreads({16, 16, 1}, {8, 8, 1});
    const MTL::Resource* the_texture[] = {texture.get()};
    const MTL::Resource* the_other[] = {other.get()};
    switch (between) {
      case Barrier::textures: e->memoryBarrier(MTL::BarrierScopeTextures); break;
      case Barrier::texture: e->memoryBarrier(the_texture, 1); break;
      case Barrier::buffers: e->memoryBarrier(MTL::BarrierScopeBuffers); break;
      case Barrier::other: e->memoryBarrier(the_other, 1); break;
      case Barrier::none: break;
    }
    e->setComputePipelineState(read.get());
    e->setBuffer(out.get(), 0, 0);
    e->dispatchThreads({16, 16, 1}, {8, 8, 1});
    e->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();  // two queues with race on: held until the host waits
    const report::Report* r = find(cb, report::CheckId::race_dispatch);
    if (between == Barrier::none || between == Barrier::other) {
      ASSERT_NE(r, nullptr) << int(between) << "\n" << Harness::reports(cb);
      EXPECT_EQ(r->kernel, "planted_dispatch_texture_read") << r->format();
      EXPECT_NE(r->memory.find("texture(0) 'src'"), std::string::npos) << r->format();
      continue;
    }
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << int(between) << "\n"
                                                               << Harness::reports(cb);
    const auto* got = static_cast<const float*>(out->contents());
    for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(got[i], float(i)) << int(between) << " " << i;
  }
}

// A texture over part of a buffer, written by one dispatch, and the whole buffer read by the
// next: one shadow per buffer serves both bindings (the buffer's bytes past the texture too).
TEST(PlantedDispatch, ATextureOverABufferAndTheBufferShareTheirShadow) {
  if (!race_dispatch_implemented()) GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  Harness h;
  h.options().workers = 1;
  h.options().checks.race = true;
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  constexpr uint32_t kFloats = 16 * 16 * 4 + 16;  // the pixels, then 64 bytes more
  auto storage = h.buffer(std::vector<float>(kFloats, 0.0f));
  MTL::TextureDescriptor* d =
      MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatRGBA32Float, 16, 16, false);
  d->setUsage(MTL::TextureUsage(MTL::TextureUsageShaderRead | MTL::TextureUsageShaderWrite));
  auto texture = NS::TransferPtr(storage->newTexture(d, 0, 16 * 16));
  ASSERT_TRUE(texture);
  auto out = h.buffer(kFloats * 4);
  auto write = h.pipeline("planted_dispatch_texture_write");
  auto scale = h.pipeline("planted_dispatch_scale");
  MTL::CommandBuffer* cb = queue->commandBuffer();
  cb->setExecutionOptions(h.options());
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
  e->setComputePipelineState(write.get());
  e->setTexture(texture.get(), 0);
  e->dispatchThreads({16, 16, 1}, {8, 8, 1});
  e->setComputePipelineState(scale.get());
  e->setBuffer(storage.get(), 0, 0);
  e->setBuffer(out.get(), 0, 1);
  const float one = 1.0f;
  e->setBytes(&one, sizeof one, 2);
  e->dispatchThreads({kFloats, 1, 1}, {64, 1, 1});
  e->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();  // two queues with race on: held until the host waits
  const report::Report* r = find(cb, report::CheckId::race_dispatch);
  ASSERT_NE(r, nullptr) << Harness::reports(cb);
  EXPECT_EQ(r->kernel, "planted_dispatch_scale") << r->format();
  EXPECT_NE(r->other_lanes.find("planted_dispatch_texture_write"), std::string::npos)
      << r->format();
}

// Without the race check the reversed schedule runs a concurrent group backwards: the consumer
// reads `mid` before the producer wrote it. In order, the result is the ordered one. Both
// execution modes.
TEST(PlantedDispatch, TheReversedScheduleExposesAMissingBarrier) {
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    for (bool indirect : {false, true}) {
      Harness h;
      h.options().mode = mode;
      Pair pair(h, indirect);
      const uint64_t loops_before = engine::lane_loop_threadgroups_total();
      const MTL::CommandBuffer* cb = pair.run(Between::nothing);
      ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
      EXPECT_TRUE(pair.ordered_result()) << "in order, indirect " << indirect;
      if (mode == metalsim::ExecutionMode::loops) {
        EXPECT_GT(engine::lane_loop_threadgroups_total(), loops_before) << "ran on fibers";
      }
      h.options().schedule.kind = metalsim::ScheduleKind::reversed;
      cb = pair.run(Between::nothing);
      ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
      EXPECT_TRUE(pair.reversed_result()) << "reversed, indirect " << indirect;
      cb = pair.run(Between::buffers);
      ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
      EXPECT_TRUE(pair.ordered_result()) << "reversed with a barrier, indirect " << indirect;
    }
  }
}

// Lane loops run a threadgroup's lanes together: the race check, race.dispatch with it, does not
// run there (said once on stderr, docs/checks.md); the missing barrier still changes the result
// under the reversed schedule (above).
TEST(PlantedDispatch, LaneLoopsRunWithoutTheRaceCheck) {
  Harness h;
  h.options().workers = 1;
  h.options().checks.race = true;
  h.options().mode = metalsim::ExecutionMode::loops;
  Pair pair(h);
  const uint64_t loops_before = engine::lane_loop_threadgroups_total();
  const MTL::CommandBuffer* cb = pair.run(Between::nothing);
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  EXPECT_EQ(find(cb, report::CheckId::race_dispatch), nullptr) << Harness::reports(cb);
  EXPECT_GT(engine::lane_loop_threadgroups_total(), loops_before);
}

// Independent dispatches of one concurrent group: three that read one input and write their own
// outputs, two that add into one counter with atomics. No report, and every output is the scalar
// reference's (random data, fixed seed), under every schedule.
TEST(PlantedDispatch, IndependentDispatchesOfAGroupHaveNoReport) {
  if (!race_dispatch_implemented()) GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  const std::vector<float> in = spec::InputGenerator(2028).uniform_vector<float>(kCount, -8, 8);
  const float factors[] = {1.5f, -0.375f, 3.0f};
  for (const char* schedule : {"in-order", "reversed", "random:7"}) {
    Harness h;
    h.options().workers = 2;
    h.options().checks.race = true;
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
    auto queue = NS::TransferPtr(h.device()->newCommandQueue());
    auto input = h.buffer(in);
    auto counter = h.buffer(std::vector<uint32_t>{0, 0, 0, 0});
    std::vector<NS::SharedPtr<MTL::Buffer>> outs;
    MTL::CommandBuffer* cb = queue->commandBuffer();
    cb->setExecutionOptions(h.options());
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
    ASSERT_EQ(e->dispatchType(), MTL::DispatchTypeConcurrent);
    auto scale = h.pipeline("planted_dispatch_scale");
    auto count = h.pipeline("planted_dispatch_count");
    for (float f : factors) {
      outs.push_back(h.buffer(kCount * 4));
      e->setComputePipelineState(scale.get());
      e->setBuffer(input.get(), 0, 0);
      e->setBuffer(outs.back().get(), 0, 1);
      e->setBytes(&f, sizeof f, 2);
      e->dispatchThreads(kGrid, kGroup);
      e->setComputePipelineState(count.get());
      e->setBuffer(counter.get(), 0, 0);
      e->dispatchThreads(kGrid, kGroup);
    }
    e->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();  // two queues with race on: held until the host waits
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << schedule << "\n"
                                                               << Harness::reports(cb);
    EXPECT_TRUE(cb->reports().empty()) << Harness::reports(cb);
    for (size_t k = 0; k < outs.size(); ++k) {
      const auto* got = static_cast<const float*>(outs[k]->contents());
      for (uint32_t i = 0; i < kCount; ++i)
        ASSERT_EQ(got[i], in[i] * factors[k]) << schedule << " output " << k << " [" << i << "]";
    }
    EXPECT_EQ(static_cast<const uint32_t*>(counter->contents())[0],
              uint32_t(std::size(factors)) * kCount * (kCount + 1) / 2)
        << schedule;
  }
}

}  // namespace

void add_dispatch_dispatchers(std::map<std::string, Dispatcher>& d) {
  d["planted_dispatch_consumer race.dispatch"] = [](Harness& h) {
    return missing_barrier(h, false);
  };
  d["planted_icb_consumer race.dispatch"] = [](Harness& h) { return missing_barrier(h, true); };
}

}  // namespace metalsim::testing::planted
