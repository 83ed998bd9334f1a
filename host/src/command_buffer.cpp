#include "metalsim/Metal/MTLCommandBuffer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>

#include "dispatch_translation.h"
#include "encoded_dispatch.h"
#include "gpu_timeline.h"
#include "metalsim/Metal.hpp"
#include "simt/checks/race_shadow.h"
#include "simt/engine/dispatch.h"
#include "simt/engine/schedule.h"
#include "simt/fault/fault.h"

namespace MTL {
namespace {

// The domain of a command buffer's error(), as Metal names it.
constexpr const char* kErrorDomain = "MTLCommandBufferErrorDomain";

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

CommandBuffer::CommandBuffer(Device* device, metalsim::ExecutionOptions options)
    : device_(device),
      options_(std::move(options)),
      recording_(std::make_unique<CommandRecording>()) {}

CommandBuffer::~CommandBuffer() = default;

size_t CommandBuffer::encodedDispatchCount() const { return recording_->dispatches.size(); }

ComputeCommandEncoder* CommandBuffer::computeCommandEncoder() {
  return computeCommandEncoder(DispatchTypeSerial);
}

ComputeCommandEncoder* CommandBuffer::computeCommandEncoder(DispatchType dispatchType) {
  encoders_.push_back(NS::TransferPtr(new ComputeCommandEncoder(this, dispatchType)));
  return encoders_.back().get();
}

// One dispatch as commit() runs it: a direct one, or an indirect command buffer's command (with
// what it inherits), or a misuse found when reading the commands, filed when its turn comes.
struct CommandBuffer::Step {
  const EncodedDispatch* dispatch = nullptr;
  const EncodedEvent* event = nullptr;         // or an event's signal or wait (no dispatch)
  std::shared_ptr<EncodedDispatch> inherited;  // an ICB command with the encoder's bindings
  std::string where;                           // the prefix of its reports
  std::string label;                           // its name in a race.dispatch report
  std::optional<metalsim::report::Report> failure;
  // How it follows the step before it: may overlap it (the same concurrent group), and a barrier
  // between them over some resources only (`fenced`: their bytes).
  bool concurrent = false;
  bool fence = false;
  bool fence_textures = false;  // the barrier orders every texture (BarrierScopeTextures)
  std::vector<std::pair<const char*, const char*>> fenced;
};

void CommandBuffer::fail(std::vector<metalsim::report::Report> reports) {
  for (auto& r : reports) reports_.push_back(std::move(r));
  status_ = CommandBufferStatusError;
}

// Validates and runs one dispatch. `where` prefixes the reports of a dispatch that came from an
// indirect command buffer ("indirect command buffer 'decode' command 12: ").
bool CommandBuffer::run(const EncodedDispatch& d, const std::string& where,
                        metalsim::checks::race::GroupShadow* group, uint32_t member,
                        const std::string& label, const std::string& context) {
  auto [problems, request] = metalsim::host::translate_dispatch(d, device_->profile());
  if (problems.empty()) {
    request.options = options_;
    request.group = group;
    request.group_member = member;
    request.group_label = label;
    request.group_context = context;
    metalsim::abi::DispatchOutcome outcome = metalsim::engine::execute_dispatch(request);
    for (auto& line : outcome.log) logs_.push_back(std::move(line));
    if (outcome.ok) {
      // Warnings alone (barrier.exited): the dispatch completed; its reports are kept.
      for (auto& r : outcome.reports) {
        r.message = where + r.message;
        reports_.push_back(std::move(r));
      }
      return true;
    }
    problems = std::move(outcome.reports);
  }
  for (auto& r : problems) r.message = where + r.message;
  fail(std::move(problems));
  return false;
}

namespace {

metalsim::report::Report misuse_report(std::string message) {
  metalsim::report::Report r;
  r.check = metalsim::report::CheckId::api_misuse;
  r.message = std::move(message);
  return r;
}

// A command whose descriptor inherits the pipeline state or the buffers takes them from the
// encoder at executeCommandsInBuffer; its own threadgroup lengths and geometry stay.
EncodedDispatch with_inherited(const IndirectCommandBuffer& icb, const EncodedDispatch& command,
                               const EncodedDispatch& encoder) {
  EncodedDispatch d = command;
  if (icb.inheritPipelineState()) d.pipeline = encoder.pipeline;
  if (icb.inheritBuffers()) d.buffers = encoder.buffers;
  return d;
}

}  // namespace

// The commands of one executeCommandsInBuffer, read now (as the GPU reads them when it runs),
// as steps: the commands between two barriers (a command with setBarrier waits for those before
// it) form a concurrent group; the first follows what came before in order. An empty command
// (never dispatched, or reset) does nothing, its barrier still counts.
void CommandBuffer::add_indirect_steps(const EncodedIndirect& e, std::vector<Step>& steps) const {
  const IndirectCommandBuffer& icb = *e.commands;
  if (!icb.problems().empty()) {
    steps.push_back({});
    steps.back().failure = misuse_report(icb.describe() + ": " + icb.problems().front());
    return;
  }
  const bool inherits = icb.inheritPipelineState() || icb.inheritBuffers();
  const ComputePipelineState* inherited = e.inherited.pipeline.get();
  if (icb.inheritPipelineState() && inherited != nullptr &&
      !inherited->supportIndirectCommandBuffers()) {
    steps.push_back({});
    steps.back().failure = misuse_report(icb.describe() + ", inheriting the encoder's pipeline: " +
                                         unsupported_pipeline(*inherited));
    return;
  }
  bool first = true, barrier = false;
  for (NS::UInteger i = e.first; i < e.first + e.count; ++i) {
    const IndirectComputeCommand& c = icb.command(i);
    barrier = barrier || c.hasBarrier();
    Step step;
    step.where = icb.describe() + " command " + std::to_string(i) + ": ";
    step.label = "command " + std::to_string(i);
    if (!c.problems().empty()) {
      step.failure = misuse_report(step.where + c.problems().front());
    } else if (!c.hasDispatch()) {
      continue;
    } else if (inherits) {
      step.inherited =
          std::make_shared<EncodedDispatch>(with_inherited(icb, c.dispatch(), e.inherited));
      step.dispatch = step.inherited.get();
    } else {
      step.dispatch = &c.dispatch();
    }
    step.concurrent = !first && !barrier;
    first = barrier = false;
    steps.push_back(std::move(step));
  }
}

bool CommandBuffer::run_step(const Step& step, metalsim::checks::race::GroupShadow* group,
                             uint32_t member, bool in_window) {
  if (step.failure) {
    fail({*step.failure});
    return false;
  }
  // In the device's window (gpu_timeline.h) other command buffers' dispatches are members too.
  const std::string context = in_window ? " of command buffer " + std::to_string(timeline_serial_) +
                                              " on queue " + std::to_string(queue_number_)
                                        : "";
  return run(*step.dispatch, step.where, group, member, step.label, context);
}

namespace {

// The buffers a dispatch binds: their contents and identities.
std::vector<std::pair<const char*, uint64_t>> bound_buffers(const EncodedDispatch& d) {
  std::vector<std::pair<const char*, uint64_t>> buffers;
  for (const BoundBuffer& b : d.buffers)
    if (b.buffer)
      buffers.push_back({static_cast<const char*>(b.buffer->contents()), b.buffer->identity()});
  for (const auto& t : d.textures)
    if (t && t->storageBuffer() != nullptr)
      buffers.push_back({static_cast<const char*>(t->storageBuffer()->contents()),
                         t->storageBuffer()->identity()});
  return buffers;
}

// The untracked memory a dispatch binds (race.dispatch across queues).
std::vector<std::pair<const char*, const char*>> untracked_memory(const EncodedDispatch& d) {
  std::vector<std::pair<const char*, const char*>> ranges;
  for (const BoundBuffer& b : d.buffers)
    if (b.buffer && b.buffer->hazardTrackingMode() == HazardTrackingModeUntracked)
      ranges.push_back({b.buffer->extentBegin(), b.buffer->guardEnd()});
  return ranges;
}

}  // namespace

// The barriers over some resources only between the members of steps [begin, end), member k
// being `first + k - begin` in `group`.
void CommandBuffer::add_partial_barriers(const std::vector<Step>& steps, size_t begin, size_t end,
                                         uint32_t first,
                                         metalsim::checks::race::GroupShadow& group) const {
  // A barrier over every texture orders the pixels of each texture the group's dispatches bind.
  std::vector<std::pair<const char*, const char*>> textures;
  for (size_t k = begin; k < end; ++k)
    if (steps[k].dispatch != nullptr)
      for (const auto& t : steps[k].dispatch->textures)
        if (t && t->storageBuffer() != nullptr) {
          const char* contents = static_cast<const char*>(t->storageBuffer()->contents());
          textures.push_back({contents, contents + t->storageBuffer()->length()});
        }
  for (size_t k = begin + 1; k < end; ++k) {
    if (!steps[k].fence) continue;
    std::vector<std::pair<const char*, const char*>> ranges = steps[k].fenced;
    if (steps[k].fence_textures) ranges.insert(ranges.end(), textures.begin(), textures.end());
    group.add_partial_barrier(first + uint32_t(k - begin), std::move(ranges));
  }
}

// Runs steps [begin, end), one concurrent group: with `race` on and two or more dispatches, under
// one race shadow of the group's device accesses (race.dispatch); with `race` on and two or more
// command queues, under the device's window (gpu_timeline.h), which also sees other command
// buffers' dispatches. The dispatches between two barriers run in the schedule's order (in
// order, reversed, or shuffled by its seed and the group's index), so that a missing barrier
// changes the result where a GPU could.
void CommandBuffer::run_group(const std::vector<Step>& steps, size_t begin, size_t end,
                              uint64_t index) {
  GpuTimeline& line = timeline();
  metalsim::checks::race::GroupShadow* group = line.window(options_.checks.race);
  std::unique_ptr<metalsim::checks::race::GroupShadow> own;
  std::unique_lock<std::mutex> window_lock;
  uint32_t first = 0;
  if (group != nullptr) {
    window_lock = line.window_lock();
    first = line.reserve_members(this, index, begin, end);
  } else if (options_.checks.race && end - begin >= 2) {
    own = std::make_unique<metalsim::checks::race::GroupShadow>();
    group = own.get();
  }
  if (group != nullptr) add_partial_barriers(steps, begin, end, first, *group);
  const metalsim::SchedulePolicy& schedule = options_.schedule;
  for (size_t run_begin = begin; run_begin < end && status_ != CommandBufferStatusError;) {
    size_t run_end = run_begin + 1;
    while (run_end < end && !steps[run_end].fence) ++run_end;
    std::vector<size_t> order;
    for (size_t k = run_begin; k < run_end; ++k) order.push_back(k);
    metalsim::engine::arrange(std::span<size_t>(order), schedule, index * 131 + run_begin + 11);
    for (size_t k : order) {
      const uint32_t member = first + uint32_t(k - begin);
      if (window_lock && steps[k].dispatch != nullptr) {
        line.note_buffers(bound_buffers(*steps[k].dispatch));
        line.order_member(member, untracked_memory(*steps[k].dispatch));
      }
      if (!run_step(steps[k], group, member, bool(window_lock))) break;
    }
    run_begin = run_end;
  }
}

// The kernels' log lines to the log state's handlers, or to stderr (docs/logging.md).
void CommandBuffer::deliver_logs() const {
  static const bool quiet = [] {
    const char* v = std::getenv("METALSIM_LOG");
    return v != nullptr && std::string(v) == "0";
  }();
  for (const metalsim::report::LogLine& line : logs_) {
    if (log_state_)
      log_state_->deliver(line.subsystem, line.category, LogLevel(line.level), line.prefixed());
    else if (!quiet) std::fprintf(stderr, "%s\n", line.prefixed().c_str());
  }
}

void CommandBuffer::record_event(Event* event, uint64_t value, bool wait) {
  if (event == nullptr) {
    fail({misuse_report(std::string(wait ? "encodeWait" : "encodeSignalEvent") +
                        ": the event is null")});
    return;
  }
  if (committed_) {
    fail({misuse_report(std::string(wait ? "encodeWait" : "encodeSignalEvent") +
                        " after commit()")});
    return;
  }
  recording_->events.push_back({NS::RetainPtr(event), value, wait, recording_->dispatches.size(),
                                recording_->indirect.size()});
}

void CommandBuffer::encodeSignalEvent(Event* event, uint64_t value) {
  record_event(event, value, false);
}

void CommandBuffer::encodeWait(Event* event, uint64_t value) { record_event(event, value, true); }

GpuTimeline& CommandBuffer::timeline() const { return device_->timeline(); }

// Every dispatch in encoding order, the indirect command buffers' commands where they were
// executed and the events' signals and waits where they were encoded.
std::vector<CommandBuffer::Step> CommandBuffer::recorded_steps() const {
  std::vector<Step> steps;
  size_t next_indirect = 0, next_event = 0;
  const CommandRecording& recorded = *recording_;
  for (size_t i = 0; i <= recorded.dispatches.size(); ++i) {
    for (;;) {
      const bool indirect_here = next_indirect < recorded.indirect.size() &&
                                 recorded.indirect[next_indirect].before_dispatch == i;
      const bool event_here =
          next_event < recorded.events.size() && recorded.events[next_event].before_dispatch == i;
      if (event_here &&
          (!indirect_here || recorded.events[next_event].indirect_before <= next_indirect)) {
        steps.push_back({});
        steps.back().event = &recorded.events[next_event++];
      } else if (indirect_here) {
        add_indirect_steps(recorded.indirect[next_indirect++], steps);
      } else {
        break;
      }
    }
    if (i == recorded.dispatches.size()) break;
    const DispatchOrder& order = recorded.orders[i];
    Step step;
    step.dispatch = &recorded.dispatches[i];
    step.label = "dispatch " + std::to_string(i);
    step.concurrent = order.concurrent;
    step.fence = order.fence;
    step.fence_textures = order.fence_textures;
    step.fenced = order.fenced;
    steps.push_back(std::move(step));
  }
  return steps;
}

// Runs the dispatches and the indirect command buffers' commands in the order they were
// encoded, but for the order within a concurrent group (run_group); the first that fails
// validation or a check ends the buffer (its later dispatches do not run; its signals still
// do, so that what waits for them is not stranded). The device's timeline runs it
// (gpu_timeline.h): now, or when its queue's earlier buffers and the events it waits for let it.
void CommandBuffer::commit() {
  if (committed_) {
    // Metal forbids committing twice; running the dispatches again would be a silent surprise.
    metalsim::report::Report r =
        misuse_report("commit() called on a command buffer that was already committed");
    fail({r});
    error_ = NS::TransferPtr(new NS::Error(CommandBufferErrorInternal, r.format(), kErrorDomain));
    return;
  }
  committed_ = true;
  // A misuse while encoding has already put the buffer in error: nothing runs.
  if (status_ != CommandBufferStatusError) status_ = CommandBufferStatusCommitted;
  steps_ = recorded_steps();
  timeline().submit(this);
}

bool CommandBuffer::advance() {
  GpuTimeline& line = timeline();
  if (!started_) {  // scheduled: its scheduled handlers run before its dispatches
    started_ = true;
    // A handler the program installed since (doctest's at each test case) must not take a
    // kernel's fault.
    metalsim::fault::reinstall_handlers_if_replaced();
    if (status_ != CommandBufferStatusError) status_ = CommandBufferStatusScheduled;
    run_handlers(scheduled_handlers_);
    gpu_start_ = seconds_now();
  }
  while (next_step_ < steps_.size()) {
    const Step& step = steps_[next_step_];
    if (step.event != nullptr) {
      const EncodedEvent& e = *step.event;
      if (!e.wait) {
        line.signal(e.event.get(), e.value, this, int64_t(next_step_));
      } else if (!line.reached(e.event.get(), e.value, this, int64_t(next_step_))) {
        waiting_for_ = e.event.get();
        waiting_value_ = e.value;
        return false;
      }
      waiting_for_ = nullptr;
      ++next_step_;
      continue;
    }
    size_t end = next_step_ + 1;
    while (end < steps_.size() && steps_[end].concurrent) ++end;
    if (status_ != CommandBufferStatusError) run_group(steps_, next_step_, end, group_index_++);
    next_step_ = end;
  }
  finish();
  return true;
}

void CommandBuffer::fail_wait(uint64_t current) {
  fail({misuse_report(
      "the command buffer waits (encodeWait) for " + waiting_for_->describe() + " to reach " +
      std::to_string(waiting_value_) + "; it is at " + std::to_string(current) +
      " and nothing signalled more before the watchdog's time ran out (a GPU would hang here)")});
  waiting_for_ = nullptr;
  next_step_ = steps_.size();
  finish();
}

void CommandBuffer::finish() {
  gpu_end_ = seconds_now();
  deliver_logs();
  if (status_ != CommandBufferStatusError) {
    status_ = CommandBufferStatusCompleted;
  } else {
    std::string text;
    bool timeout = false;
    for (const auto& r : reports_) {
      text += r.format();
      timeout = timeout || r.check == metalsim::report::CheckId::watchdog_timeout;
    }
    error_ = NS::TransferPtr(new NS::Error(
        timeout ? CommandBufferErrorTimeout : CommandBufferErrorInternal, text, kErrorDomain));
  }
  const bool has_completed_handlers = !completed_handlers_.empty();
  {
    GpuTimeline::CompletedHandlers in_handlers(this);
    run_handlers(completed_handlers_);
  }
  if (has_completed_handlers) timeline().observe_through_handler(this);
}

// ---- Handlers, labels, enqueue (issue 26 item 2)

bool CommandBuffer::add_handler(const char* which) {
  if (!committed_) return true;
  std::fprintf(stderr,
               "metalsim: %s called after commit(): Metal forbids it; the handler is not "
               "called\n",
               which);
  return false;
}

void CommandBuffer::addScheduledHandler(const CommandBufferHandler& handler) {
  if (add_handler("addScheduledHandler") && handler) scheduled_handlers_.push_back(handler);
}

void CommandBuffer::addCompletedHandler(const CommandBufferHandler& handler) {
  if (add_handler("addCompletedHandler") && handler) completed_handlers_.push_back(handler);
}

// Each once, in order; released after the call (what they captured goes with them). The buffer
// stays alive while they run, whoever else releases it.
void CommandBuffer::run_handlers(std::vector<CommandBufferHandler>& handlers) {
  if (handlers.empty()) return;
  NS::SharedPtr<CommandBuffer> self = NS::RetainPtr(this);
  std::vector<CommandBufferHandler> now;
  now.swap(handlers);
  for (CommandBufferHandler& h : now) {
    h(this);
    h = nullptr;
  }
}

void CommandBuffer::enqueue() {
  if (status_ == CommandBufferStatusNotEnqueued) status_ = CommandBufferStatusEnqueued;
}

void CommandBuffer::setLabel(const NS::String* label) {
  label_ = NS::RetainPtr(const_cast<NS::String*>(label));
}

void CommandBuffer::waitUntilCompleted() {
  const double watchdog = options_.watchdog_seconds;
  timeline().wait(this, watchdog > 0 ? watchdog : 10.0);
}

CommandBufferStatus CommandBuffer::status() const {
  // A buffer the timeline holds runs when the host asks (gpu_timeline.h, held buffers).
  if (status_ == CommandBufferStatusCommitted) timeline().poll();
  if (status_ == CommandBufferStatusCompleted || status_ == CommandBufferStatusError)
    timeline().observe(this);
  return status_;
}

std::vector<const void*> CommandBuffer::tracked_resources() const {
  std::vector<const void*> tracked;
  for (const Step& step : steps_) {
    if (step.dispatch == nullptr) continue;
    for (const BoundBuffer& b : step.dispatch->buffers)
      if (b.buffer && !b.from_set_bytes &&
          b.buffer->hazardTrackingMode() != HazardTrackingModeUntracked)
        tracked.push_back(b.buffer->contents());
    for (const auto& t : step.dispatch->textures)
      if (t && t->hazardTrackingMode() != HazardTrackingModeUntracked) tracked.push_back(t.get());
  }
  std::sort(tracked.begin(), tracked.end());
  tracked.erase(std::unique(tracked.begin(), tracked.end()), tracked.end());
  return tracked;
}

}  // namespace MTL
