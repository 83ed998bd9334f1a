// race.dispatch across command queues (issue 28 item 3): a producer on one queue writes untracked
// memory that a consumer on another queue reads, with nothing between them. A GPU may run the two
// command buffers at the same time; metalsim runs them one after the other (held until the host
// waits, with `race` on), and with `race` on reports the pair, naming both dispatches, kernels
// and lines. An event signalled after the producer and waited for before the consumer orders
// them, as does the host waiting for the producer before committing the consumer, committing the
// consumer from the producer's completed handler, or after a flag that handler set, one queue, or
// memory Metal tracks. A completed handler whose end the host does not wait for orders nothing:
// the host's commit right after is still unordered.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "kernels/spec/inputs.h"
#include "planted_support.h"

namespace metalsim::testing::planted {
namespace {

constexpr uint32_t kCount = 256;
const MTL::Size kGrid{kCount, 1, 1}, kGroup{64, 1, 1};

enum class Between {
  nothing,
  event,
  host_wait,
  shared_event_wait,
  one_queue,
  handler_commits,  // the producer's completed handler commits the consumer
  idle_handler,     // the producer has a completed handler; the host commits the consumer
  handler_signals,  // the handler signals a shared event the consumer's buffer waits for
  handler_flag,     // the host waits for a flag the producer's completed handler sets
};

class Queues {
 public:
  Queues(Harness& h, bool untracked)
      : h_(h),
        producer_queue_(NS::TransferPtr(h.device()->newCommandQueue())),
        consumer_queue_(NS::TransferPtr(h.device()->newCommandQueue())),
        in_(h.buffer(spec::InputGenerator(29).uniform_vector<float>(kCount, -4, 4))),
        mid_(NS::TransferPtr(
            h.device()->newBuffer(kCount * 4, untracked ? MTL::ResourceHazardTrackingModeUntracked
                                                        : MTL::ResourceStorageModeShared))),
        out_(h.buffer(kCount * 4)),
        producer_(h.pipeline("planted_dispatch_producer")),
        consumer_(h.pipeline("planted_dispatch_consumer")) {
    mid_->setLabel(NS::String::string("mid"));
  }

  // Commits the producer, then the consumer; the consumer's command buffer.
  const MTL::CommandBuffer* run(Between between) {
    auto event = NS::TransferPtr(h_.device()->newSharedEvent());
    MTL::CommandBuffer* p = command_buffer(producer_queue_.get());
    encode(p, producer_.get(), in_.get(), mid_.get());
    if (between == Between::event || between == Between::shared_event_wait)
      p->encodeSignalEvent(event.get(), 1);
    MTL::CommandBuffer* c = command_buffer(between == Between::one_queue ? producer_queue_.get()
                                                                         : consumer_queue_.get());
    if (between == Between::event || between == Between::handler_signals)
      c->encodeWait(event.get(), 1);
    encode(c, consumer_.get(), mid_.get(), out_.get());
    if (between == Between::handler_commits)
      p->addCompletedHandler([c](MTL::CommandBuffer*) { c->commit(); });
    if (between == Between::idle_handler) p->addCompletedHandler([](MTL::CommandBuffer*) {});
    if (between == Between::handler_signals)
      p->addCompletedHandler([e = event.get()](MTL::CommandBuffer*) { e->setSignaledValue(1); });
    std::atomic<bool> produced{false};
    if (between == Between::handler_flag)
      p->addCompletedHandler([&produced](MTL::CommandBuffer*) { produced = true; });
    const auto producer_committed = std::chrono::steady_clock::now();
    p->commit();
    if (between == Between::handler_flag) wait_for(produced);
    if (between == Between::host_wait) p->waitUntilCompleted();
    if (between == Between::shared_event_wait) {
      EXPECT_TRUE(event->waitUntilSignaledValue(1, 1000));
    }
    if (between != Between::handler_commits) c->commit();
    commits_apart_ = std::chrono::steady_clock::now() - producer_committed;
    c->waitUntilCompleted();
    // The producer too: under a schedule the timeline's own thread may be running it still when
    // the consumer is done (its status then reads committed; CI saw it once).
    p->waitUntilCompleted();
    EXPECT_EQ(p->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(p);
    return c;
  }

  bool ordered_result() const { return consumer_saw_producer(*in_, *out_, kCount); }
  // Whether both commits fell inside the timeline's hold (gpu_timeline.h: the first held buffer
  // runs kHoldFor, 2 ms, after it was held): a run of the test preempted for longer between them
  // says nothing of the order.
  bool committed_together() const { return commits_apart_ < std::chrono::milliseconds(1); }

 private:
  // Host code that learns of the producer's end from its completed handler only (no Metal wait);
  // a held buffer must still run (gpu_timeline.h). Fails rather than hangs.
  static void wait_for(const std::atomic<bool>& flag) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!flag && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    EXPECT_TRUE(flag) << "the producer's completed handler never ran without a host wait";
  }

  MTL::CommandBuffer* command_buffer(MTL::CommandQueue* queue) {
    MTL::CommandBuffer* cb = queue->commandBuffer();
    cb->setExecutionOptions(h_.options());
    return cb;
  }
  static void encode(MTL::CommandBuffer* cb, MTL::ComputePipelineState* pso, MTL::Buffer* a,
                     MTL::Buffer* b) {
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->setComputePipelineState(pso);
    e->setBuffer(a, 0, 0);
    e->setBuffer(b, 0, 1);
    e->dispatchThreads(kGrid, kGroup);
    e->endEncoding();
  }

  Harness& h_;
  std::chrono::steady_clock::duration commits_apart_{};
  NS::SharedPtr<MTL::CommandQueue> producer_queue_, consumer_queue_;
  NS::SharedPtr<MTL::Buffer> in_, mid_, out_;
  NS::SharedPtr<MTL::ComputePipelineState> producer_, consumer_;
};

const report::Report* find(const MTL::CommandBuffer* cb, report::CheckId id) {
  for (const report::Report& r : cb->reports())
    if (r.check == id) return &r;
  return nullptr;
}

void race_on(Harness& h) {
  h.options().workers = 1;
  h.options().checks.race = true;
}

Harness racing_harness() {
  Harness h;
  race_on(h);
  return h;
}

// Two unordered queues with the race check on, run until both commits fall inside the timeline's
// hold: a run preempted between them for longer (a loaded machine) runs the buffers one after
// the other, never together, and no race between them is there to report.
struct UnorderedRun {
  std::unique_ptr<Harness> harness = std::make_unique<Harness>();
  std::unique_ptr<Queues> queues;
  const MTL::CommandBuffer* consumer = nullptr;
};

UnorderedRun run_unordered(Between between) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    UnorderedRun run;
    race_on(*run.harness);
    run.queues = std::make_unique<Queues>(*run.harness, true);
    run.consumer = run.queues->run(between);
    if (run.queues->committed_together()) return run;
  }
  ADD_FAILURE() << "20 runs preempted between the two commits";
  return {};
}

TEST(PlantedQueues, UnorderedQueuesOnUntrackedMemoryAreReported) {
  if (!report::check_implemented(report::CheckId::race_dispatch))
    GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  const uint32_t consumer_line = marker_line("race_dispatch.metal", "planted_dispatch_consumer");
  const uint32_t producer_line =
      marker_line("race_dispatch.metal", "planted_dispatch_consumer", "PLANT2");
  const UnorderedRun unordered = run_unordered(Between::nothing);
  const MTL::CommandBuffer* c = unordered.consumer;
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->status(), MTL::CommandBufferStatusError);
  {  // a completed handler alone orders nothing
    const UnorderedRun handler_only = run_unordered(Between::idle_handler);
    const MTL::CommandBuffer* c2 = handler_only.consumer;
    ASSERT_NE(c2, nullptr);
    EXPECT_EQ(c2->status(), MTL::CommandBufferStatusError);
    EXPECT_NE(find(c2, report::CheckId::race_dispatch), nullptr) << Harness::reports(c2);
  }
  const report::Report* r = find(c, report::CheckId::race_dispatch);
  ASSERT_NE(r, nullptr) << Harness::reports(c);
  const std::string text = r->format();
  EXPECT_EQ(r->kernel, "planted_dispatch_consumer") << text;
  EXPECT_EQ(r->site.line, consumer_line) << text;
  EXPECT_EQ(r->other_site.line, producer_line) << text;
  EXPECT_NE(text.find("kernel 'planted_dispatch_producer'"), std::string::npos) << text;
  EXPECT_NE(text.find("command buffer"), std::string::npos) << text;
  EXPECT_NE(text.find("read by dispatch 0 of command buffer"), std::string::npos) << text;
  EXPECT_NE(text.find("no event or host wait orders their command buffers"), std::string::npos)
      << text;
}

TEST(PlantedQueues, WhatOrdersThemIsNotReported) {
  if (!report::check_implemented(report::CheckId::race_dispatch))
    GTEST_SKIP() << "race.dispatch needs the shadow racecheck";
  for (Between between :
       {Between::event, Between::host_wait, Between::shared_event_wait, Between::one_queue,
        Between::handler_commits, Between::handler_signals, Between::handler_flag}) {
    Harness h = racing_harness();
    Queues queues(h, true);
    const MTL::CommandBuffer* c = queues.run(between);
    EXPECT_EQ(c->status(), MTL::CommandBufferStatusCompleted) << int(between) << "\n"
                                                              << Harness::reports(c);
    EXPECT_TRUE(queues.ordered_result()) << int(between);
  }
  // Memory Metal tracks is ordered across queues by Metal itself.
  Harness h = racing_harness();
  Queues tracked(h, false);
  const MTL::CommandBuffer* c = tracked.run(Between::nothing);
  EXPECT_EQ(c->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(c);
  EXPECT_TRUE(tracked.ordered_result());
}

// Under a schedule other than in-order the queues' command buffers are held and run in the
// schedule's order when the host waits (gpu_timeline.h): a missing event between the producer's
// and the consumer's queues then shows in the results, with the default checks (no race check),
// as on a GPU that ran the consumer first. What orders them still orders them.
Harness scheduled_harness(const char* schedule) {
  Harness h;
  EXPECT_TRUE(SchedulePolicy::parse(schedule, h.options().schedule));
  return h;
}

// The producer's and consumer's commits under `schedule`, again while the machine preempted the
// test between them for longer than the hold (a loaded CI machine): whether the consumer saw the
// producer's results.
bool ordered_when_committed_together(const char* schedule) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    Harness h = scheduled_harness(schedule);
    Queues queues(h, true);
    const MTL::CommandBuffer* c = queues.run(Between::nothing);
    EXPECT_EQ(c->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(c);
    if (queues.committed_together()) return queues.ordered_result();
  }
  ADD_FAILURE() << "20 runs preempted between the two commits";
  return true;
}

TEST(PlantedQueues, AScheduleRunsUnorderedQueuesOutOfCommitOrder) {
  EXPECT_FALSE(ordered_when_committed_together("reversed"))
      << "the consumer ran after the producer";
  {  // in order (the default): commit order, whatever the queues
    Harness h = scheduled_harness("in-order");
    Queues queues(h, true);
    queues.run(Between::nothing);
    EXPECT_TRUE(queues.ordered_result());
  }
  int reordered = 0;  // random: some seed runs the consumer first
  for (int seed = 1; seed <= 8; ++seed)
    reordered +=
        ordered_when_committed_together(("random:" + std::to_string(seed)).c_str()) ? 0 : 1;
  EXPECT_GT(reordered, 0);
  EXPECT_LT(reordered, 8);
}

TEST(PlantedQueues, UnderAScheduleWhatOrdersThemStillDoes) {
  for (const char* schedule : {"reversed", "random:3"}) {
    for (Between between :
         {Between::event, Between::host_wait, Between::shared_event_wait, Between::one_queue,
          Between::handler_commits, Between::handler_signals, Between::handler_flag}) {
      Harness h = scheduled_harness(schedule);
      Queues queues(h, true);
      const MTL::CommandBuffer* c = queues.run(between);
      EXPECT_EQ(c->status(), MTL::CommandBufferStatusCompleted)
          << schedule << " " << int(between) << "\n"
          << Harness::reports(c);
      EXPECT_TRUE(queues.ordered_result()) << schedule << " " << int(between);
    }
    // Both bind `mid`, tracked: Metal orders them, so the consumer stays behind the producer.
    Harness h = scheduled_harness(schedule);
    Queues tracked(h, false);
    tracked.run(Between::nothing);
    EXPECT_TRUE(tracked.ordered_result()) << schedule;
  }
}

}  // namespace
}  // namespace metalsim::testing::planted
