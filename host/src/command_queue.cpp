#include "metalsim/Metal/MTLCommandQueue.hpp"

#include "metalsim/Metal/MTLCommandBuffer.hpp"
#include "metalsim/Metal/MTLDevice.hpp"

namespace MTL {
namespace {
constexpr size_t kRecentCommandBuffers = 64;
}

CommandBuffer* CommandQueue::commandBuffer() { return commandBuffer(nullptr); }

CommandBuffer* CommandQueue::commandBuffer(const CommandBufferDescriptor* descriptor) {
  const bool own_options = descriptor != nullptr && descriptor->hasExecutionOptions();
  auto* cb = new CommandBuffer(
      device_, own_options ? descriptor->executionOptions() : device_->executionOptions());
  if (descriptor != nullptr) cb->setLogState(descriptor->logState());
  recent_.push_back(NS::TransferPtr(cb));
  if (recent_.size() > kRecentCommandBuffers) recent_.pop_front();
  return cb;
}

CommandQueue::~CommandQueue() = default;

}  // namespace MTL
