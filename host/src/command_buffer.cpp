#include "metalsim/Metal/MTLCommandBuffer.hpp"

#include <cstdio>
#include <cstdlib>

#include "metalsim/Metal.hpp"
#include "simt/engine/dispatch.h"
#include "validation.h"

namespace MTL {

CommandBuffer::~CommandBuffer() = default;

ComputeCommandEncoder* CommandBuffer::computeCommandEncoder() {
  encoders_.push_back(NS::TransferPtr(new ComputeCommandEncoder(this)));
  return encoders_.back().get();
}

void CommandBuffer::fail(std::vector<metalsim::check::Report> reports) {
  for (auto& r : reports) reports_.push_back(std::move(r));
  status_ = CommandBufferStatusError;
}

// Validates and runs one dispatch. `where` prefixes the reports of a dispatch that came from an
// indirect command buffer ("indirect command buffer 'decode' command 12: ").
bool CommandBuffer::run(const EncodedDispatch& d, const std::string& where) {
  metalsim::engine::DispatchRequest request;
  std::vector<metalsim::check::Report> problems =
      metalsim::host::validate(d, device_->profile(), request);
  if (problems.empty()) {
    request.options = options_;
    metalsim::engine::DispatchOutcome outcome = metalsim::engine::execute_dispatch(request);
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

metalsim::check::Report misuse_report(std::string message) {
  metalsim::check::Report r;
  r.check = metalsim::check::CheckId::api_misuse;
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
// in order. An empty command (never dispatched, or reset) does nothing.
bool CommandBuffer::run_indirect(const EncodedIndirect& e) {
  const IndirectCommandBuffer& icb = *e.commands;
  if (!icb.problems().empty()) {
    fail({misuse_report(icb.describe() + ": " + icb.problems().front())});
    return false;
  }
  const bool inherits = icb.inheritPipelineState() || icb.inheritBuffers();
  const ComputePipelineState* inherited = e.inherited.pipeline.get();
  if (icb.inheritPipelineState() && inherited != nullptr &&
      !inherited->supportIndirectCommandBuffers()) {
    fail({misuse_report(icb.describe() + ", inheriting the encoder's pipeline: " +
                        unsupported_pipeline(*inherited))});
    return false;
  }
  for (NS::UInteger i = e.first; i < e.first + e.count; ++i) {
    const IndirectComputeCommand& c = icb.command(i);
    const std::string where = icb.describe() + " command " + std::to_string(i) + ": ";
    if (!c.problems().empty()) {
      fail({misuse_report(where + c.problems().front())});
      return false;
    }
    if (!c.hasDispatch()) continue;
    const bool ok = inherits ? run(with_inherited(icb, c.dispatch(), e.inherited), where)
                             : run(c.dispatch(), where);
    if (!ok) return false;
  }
  return true;
}

// The kernels' log lines to the log state's handlers, or to stderr (docs/logging.md).
void CommandBuffer::deliver_logs() const {
  static const bool quiet = [] {
    const char* v = std::getenv("METALSIM_LOG");
    return v != nullptr && std::string(v) == "0";
  }();
  for (const metalsim::engine::LogLine& line : logs_) {
    if (log_state_)
      log_state_->deliver(line.subsystem, line.category, LogLevel(line.level), line.prefixed());
    else if (!quiet) std::fprintf(stderr, "%s\n", line.prefixed().c_str());
  }
}

// Runs the dispatches and the indirect command buffers' commands in the order they were
// encoded; the first that fails validation or a check ends the buffer.
void CommandBuffer::commit() {
  if (committed_) {
    // Metal forbids committing twice; running the dispatches again would be a silent surprise.
    metalsim::check::Report r =
        misuse_report("commit() called on a command buffer that was already committed");
    fail({r});
    error_ = NS::TransferPtr(new NS::Error(CommandBufferErrorInternal, r.format()));
    return;
  }
  committed_ = true;
  // A misuse while encoding has already put the buffer in error: nothing runs.
  if (status_ != CommandBufferStatusError) status_ = CommandBufferStatusCommitted;
  size_t next_indirect = 0;
  for (size_t i = 0; i <= dispatches_.size() && status_ != CommandBufferStatusError; ++i) {
    while (next_indirect < indirect_.size() && indirect_[next_indirect].before_dispatch == i &&
           run_indirect(indirect_[next_indirect]))
      ++next_indirect;
    if (i < dispatches_.size() && status_ != CommandBufferStatusError) run(dispatches_[i]);
  }
  deliver_logs();
  if (status_ != CommandBufferStatusError) {
    status_ = CommandBufferStatusCompleted;
    return;
  }
  std::string text;
  bool timeout = false;
  for (const auto& r : reports_) {
    text += r.format();
    timeout = timeout || r.check == metalsim::check::CheckId::watchdog_timeout;
  }
  error_ = NS::TransferPtr(
      new NS::Error(timeout ? CommandBufferErrorTimeout : CommandBufferErrorInternal, text));
}

}  // namespace MTL
