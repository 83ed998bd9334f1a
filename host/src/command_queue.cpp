#include "metalsim/Metal/MTLCommandQueue.hpp"

#include "gpu_timeline.h"
#include "metalsim/Metal/MTLCommandBuffer.hpp"
#include "metalsim/Metal/MTLDevice.hpp"

namespace MTL {
namespace {
constexpr size_t kRecentCommandBuffers = 64;
}

CommandQueue::CommandQueue(Device* device)
    : device_(device), number_(device->timeline().add_queue()) {}

CommandBuffer* CommandQueue::commandBuffer() { return commandBuffer(nullptr); }

CommandBuffer* CommandQueue::commandBuffer(const CommandBufferDescriptor* descriptor) {
  const bool own_options = descriptor != nullptr && descriptor->hasExecutionOptions();
  auto* cb = new CommandBuffer(
      device_, own_options ? descriptor->executionOptions() : device_->executionOptions());
  cb->queue_number_ = number_;
  if (descriptor != nullptr) cb->setLogState(descriptor->logState());
  recent_.push_back(NS::TransferPtr(cb));
  if (recent_.size() > kRecentCommandBuffers) recent_.pop_front();
  return cb;
}

CommandQueue::~CommandQueue() { device_->timeline().remove_queue(); }

}  // namespace MTL
