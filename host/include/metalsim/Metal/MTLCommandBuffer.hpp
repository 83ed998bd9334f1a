#pragma once
// MTL::CommandBuffer: encoded dispatches, run by commit(). metalsim executes at commit (on every
// core); waitUntilCompleted() then returns at once, unless the buffer waits for an event
// (encodeWait) that has not been signalled, or its queue has an earlier such buffer: it then runs
// when the signal comes, and waitUntilCompleted() waits for it (MTLEvent.hpp). Dispatches run one
// at a time in encoding order, except within a concurrent group (a concurrent encoder's dispatches
// between memory barriers, an indirect command buffer's commands between barriers), which runs in
// the order of the schedule (ExecutionOptions::schedule: reversed, or shuffled by random:SEED) and
// is checked for race.dispatch with `race` on. A dispatch that fails validation or a check ends the
// buffer with CommandBufferStatusError; its error() and reports() say what and where, and the
// dispatches after it do not run. A warning (barrier.exited, report::Severity::warning) does not:
// the buffer completes with the report in reports(), unless its execution options are strict
// (METALSIM_STRICT=1).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metalsim/ExecutionOptions.hpp"
#include "metalsim/Metal/MTLComputeCommandEncoder.hpp"
#include "metalsim/Metal/MTLIndirectCommandBuffer.hpp"
#include "metalsim/Metal/MTLLogState.hpp"
#include "metalsim/Metal/MTLTypes.hpp"
#include "simt/report/log_line.h"
#include "simt/report/report.h"

namespace metalsim::checks::race {
class GroupShadow;
}

namespace MTL {

class CommandBuffer;
class CommandQueue;
class Device;
class ResidencySet;

// What addScheduledHandler and addCompletedHandler take (a block in metal-cpp, any callable
// here), called with the command buffer.
using CommandBufferHandler = std::function<void(CommandBuffer*)>;
using HandlerFunction = CommandBufferHandler;
class Event;
class GpuTimeline;

// What the encoders recorded (host/src/encoded_dispatch.h).
struct EncodedDispatch;
struct EncodedIndirect;
struct CommandRecording;

enum CommandBufferStatus : NS::UInteger {
  CommandBufferStatusNotEnqueued = 0,
  CommandBufferStatusEnqueued = 1,
  CommandBufferStatusCommitted = 2,
  CommandBufferStatusScheduled = 3,
  CommandBufferStatusCompleted = 4,
  CommandBufferStatusError = 5,
};

enum CommandBufferError : NS::Integer {
  CommandBufferErrorNone = 0,
  CommandBufferErrorInternal = 1,
  CommandBufferErrorTimeout = 2,
  CommandBufferErrorInvalidResource = 9,
};

// What a new command buffer is made with (CommandQueue::commandBuffer(descriptor)).
// metalsim's own field: the execution options of the command buffer's dispatches.
class CommandBufferDescriptor : public NS::Object {
 public:
  static CommandBufferDescriptor* alloc() { return new CommandBufferDescriptor; }
  CommandBufferDescriptor* init() { return this; }
  bool retainedReferences() const { return retained_references_; }
  void setRetainedReferences(bool retain) { retained_references_ = retain; }

  // Unset: the device's executionOptions() when the command buffer is made.
  bool hasExecutionOptions() const { return has_options_; }
  const metalsim::ExecutionOptions& executionOptions() const { return options_; }
  // Where the command buffer's shader log lines go (MTLLogState.hpp); nullptr: stderr.
  LogState* logState() const { return log_state_.get(); }
  void setLogState(LogState* state) { log_state_ = NS::RetainPtr(state); }
  void setExecutionOptions(const metalsim::ExecutionOptions& options) {
    options_ = options;
    has_options_ = true;
  }

 private:
  ~CommandBufferDescriptor() override = default;
  bool retained_references_ = true;
  bool has_options_ = false;
  metalsim::ExecutionOptions options_;
  NS::SharedPtr<LogState> log_state_;
};

class CommandBuffer : public NS::Object {
 public:
  ComputeCommandEncoder* computeCommandEncoder();
  // DispatchTypeConcurrent: an encoder whose dispatches between memoryBarrier calls may overlap.
  ComputeCommandEncoder* computeCommandEncoder(DispatchType dispatchType);
  void commit();
  // Until the buffer has run; one whose event wait nothing signals fails after the watchdog's
  // time (10 s when unset) with the event named, instead of hanging.
  void waitUntilCompleted();
  void waitUntilScheduled() {}
  // Reading a finished status tells the host the buffer completed (orders later commits after
  // it, for race.dispatch across queues).
  CommandBufferStatus status() const;
  // The commands encoded after a wait run once `event`'s value is at least `value`; a signal
  // sets it when the commands encoded before it have run. Between encoders, as in Metal.
  void encodeSignalEvent(Event* event, uint64_t value);
  void encodeWait(Event* event, uint64_t value);
  NS::Error* error() const { return error_.get(); }
  Device* device() const { return device_; }

  // ---- metal-cpp's calls MLX makes (issue 26 item 2; docs/host_api.md, "How commit works")
  // Handlers run once each, in the order added, on the thread that commits: the scheduled ones
  // when the buffer is scheduled (before its dispatches run; status() Scheduled), the completed
  // ones after the last dispatch ran or the buffer failed (status() Completed or Error, error()
  // set). A handler added after commit() is not called (Metal forbids adding one; said on
  // stderr). The handlers are released once called.
  void addScheduledHandler(const CommandBufferHandler& handler);
  void addCompletedHandler(const CommandBufferHandler& handler);
  // NotEnqueued -> Enqueued; commit() enqueues a buffer that was not.
  void enqueue();
  // false for CommandQueue::commandBufferWithUnretainedReferences's (and a descriptor's
  // setRetainedReferences(false)).
  bool retainedReferences() const { return retained_references_; }
  CommandQueue* commandQueue() const { return queue_; }
  NS::String* label() const { return label_.get(); }
  void setLabel(const NS::String* label);
  // When the dispatches began and ended, in seconds of the host's steady clock (0 before).
  double GPUStartTime() const { return gpu_start_; }
  double GPUEndTime() const { return gpu_end_; }
  double kernelStartTime() const { return gpu_start_; }
  double kernelEndTime() const { return gpu_end_; }
  // Residency sets: accepted, nothing to make resident.
  void useResidencySet(const ResidencySet*) {}
  void useResidencySets(const ResidencySet* const[], NS::UInteger) {}
  // ---- end of issue 26's block

  // metalsim's own: how this buffer's dispatches run (a copy of the device's options when it
  // was made; changes before commit() affect this buffer only).
  const metalsim::ExecutionOptions& executionOptions() const { return options_; }
  void setExecutionOptions(const metalsim::ExecutionOptions& options) { options_ = options; }

  // metalsim's own: every report of the run (a completed buffer's are warnings).
  const std::vector<metalsim::report::Report>& reports() const { return reports_; }
  // metalsim's own: how many dispatches the encoders recorded (direct ones; an indirect command
  // buffer's commands are counted when they run).
  size_t encodedDispatchCount() const;
  // metalsim's own: what the kernels logged, dispatch by dispatch, each in threadgroup order;
  // and where the lines go when the buffer completes (set from the descriptor; nullptr: stderr).
  const std::vector<metalsim::report::LogLine>& logs() const { return logs_; }
  LogState* logState() const { return log_state_.get(); }
  void setLogState(LogState* state) { log_state_ = NS::RetainPtr(state); }

 private:
  friend class CommandQueue;
  friend class ComputeCommandEncoder;
  friend class GpuTimeline;
  CommandBuffer(Device* device, metalsim::ExecutionOptions options);
  ~CommandBuffer() override;
  void fail(std::vector<metalsim::report::Report> reports);
  void deliver_logs() const;
  struct Step;  // command_buffer.cpp
  // Validates and runs one dispatch; false when it failed (the buffer is then in error). `group`:
  // the concurrent group's race shadow (race.dispatch), `member` its index there, `label` its name.
  bool run(const EncodedDispatch& dispatch, const std::string& where = {},
           metalsim::checks::race::GroupShadow* group = nullptr, uint32_t member = 0,
           const std::string& label = {}, const std::string& context = {});
  void add_indirect_steps(const EncodedIndirect& execution, std::vector<Step>& steps) const;
  bool run_step(const Step& step, metalsim::checks::race::GroupShadow* group, uint32_t member,
                bool in_window);
  void run_group(const std::vector<Step>& steps, size_t begin, size_t end, uint64_t index);
  void add_partial_barriers(const std::vector<Step>& steps, size_t begin, size_t end,
                            uint32_t first, metalsim::checks::race::GroupShadow& group) const;
  void record_event(Event* event, uint64_t value, bool wait);
  std::vector<Step> recorded_steps() const;
  // The tracked resources its steps bind (buffers by contents, textures), sorted: Metal orders
  // two command buffers that share one (gpu_timeline.h, held buffers).
  std::vector<const void*> tracked_resources() const;
  // Runs the steps from the next one until the end (true) or an event wait not yet reached.
  bool advance();
  void finish();
  // The wait never reached: the buffer fails naming the event (the value it has is `current`).
  void fail_wait(uint64_t current);
  GpuTimeline& timeline() const;

  void run_handlers(std::vector<CommandBufferHandler>& handlers);
  bool add_handler(const char* which);

  Device* device_;
  CommandQueue* queue_ = nullptr;
  bool retained_references_ = true;
  NS::SharedPtr<NS::String> label_;
  std::vector<CommandBufferHandler> scheduled_handlers_, completed_handlers_;
  double gpu_start_ = 0, gpu_end_ = 0;
  metalsim::ExecutionOptions options_;
  CommandBufferStatus status_ = CommandBufferStatusNotEnqueued;
  bool committed_ = false;
  NS::SharedPtr<NS::Error> error_;
  std::vector<metalsim::report::Report> reports_;
  std::vector<metalsim::report::LogLine> logs_;
  NS::SharedPtr<LogState> log_state_;
  std::unique_ptr<CommandRecording> recording_;
  std::vector<NS::SharedPtr<ComputeCommandEncoder>> encoders_;
  // Where commit() stands (advance); what the timeline (host/src/gpu_timeline.h) knows it by.
  std::vector<Step> steps_;
  size_t next_step_ = 0;
  bool started_ = false;  // its scheduled handlers have run
  uint64_t group_index_ = 0;
  uint32_t queue_number_ = 0;
  uint64_t timeline_serial_ = 0;
  Event* waiting_for_ = nullptr;
  uint64_t waiting_value_ = 0;
};

}  // namespace MTL
