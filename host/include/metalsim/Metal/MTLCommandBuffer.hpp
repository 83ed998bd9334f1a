#pragma once
// MTL::CommandBuffer: encoded dispatches, run in order by commit(). metalsim executes at
// commit (on every core); waitUntilCompleted() then returns at once. A dispatch that fails
// validation or a check ends the buffer with CommandBufferStatusError; its error() and
// reports() say what and where, and the dispatches after it do not run.
#include <string>
#include <vector>

#include "metalsim/Metal/MTLComputeCommandEncoder.hpp"
#include "metalsim/Metal/MTLTypes.hpp"
#include "simt/check/report.h"

namespace MTL {

class Device;

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

class CommandBuffer : public NS::Object {
 public:
  ComputeCommandEncoder* computeCommandEncoder();
  void                   commit();
  void                   waitUntilCompleted() {}
  void                   waitUntilScheduled() {}
  CommandBufferStatus    status() const { return status_; }
  NS::Error*             error() const { return error_.get(); }
  Device*                device() const { return device_; }

  // metalsim's own: every report of the run, and the dispatches as encoded.
  const std::vector<metalsim::check::Report>& reports() const { return reports_; }
  const std::vector<EncodedDispatch>& dispatches() const { return dispatches_; }

 private:
  friend class CommandQueue;
  friend class ComputeCommandEncoder;
  explicit CommandBuffer(Device* device) : device_(device) {}
  ~CommandBuffer() override;
  void fail(std::vector<metalsim::check::Report> reports);

  Device* device_;
  CommandBufferStatus status_ = CommandBufferStatusNotEnqueued;
  NS::SharedPtr<NS::Error> error_;
  std::vector<metalsim::check::Report> reports_;
  std::vector<EncodedDispatch> dispatches_;
  std::vector<NS::SharedPtr<ComputeCommandEncoder>> encoders_;
};

}  // namespace MTL
