#include "metalsim/Metal/MTLCommandBuffer.hpp"

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

// Runs the dispatches in order; the first that fails validation or a check ends the buffer.
void CommandBuffer::commit() {
  if (status_ != CommandBufferStatusNotEnqueued && status_ != CommandBufferStatusEnqueued) {
    // Metal forbids committing twice; running the dispatches again would be a silent surprise.
    metalsim::check::Report r;
    r.check = metalsim::check::CheckId::api_misuse;
    r.message = "commit() called on a command buffer that was already committed";
    fail({r});
    error_ = NS::TransferPtr(new NS::Error(CommandBufferErrorInternal, r.format()));
    return;
  }
  status_ = CommandBufferStatusCommitted;
  for (const EncodedDispatch& d : dispatches_) {
    if (status_ == CommandBufferStatusError) break;
    metalsim::engine::DispatchRequest request;
    std::vector<metalsim::check::Report> problems =
        metalsim::host::validate(d, device_->profile(), request);
    if (!problems.empty()) {
      fail(std::move(problems));
      break;
    }
    request.options = options_;
    metalsim::engine::DispatchOutcome outcome = metalsim::engine::execute_dispatch(request);
    if (!outcome.ok) fail(std::move(outcome.reports));
  }
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
