#include "metalsim/Metal/MTLCommandQueue.hpp"

#include "metalsim/Metal/MTLCommandBuffer.hpp"

namespace MTL {
namespace {
constexpr size_t kRecentCommandBuffers = 64;
}

CommandBuffer* CommandQueue::commandBuffer() {
  recent_.push_back(NS::TransferPtr(new CommandBuffer(device_)));
  if (recent_.size() > kRecentCommandBuffers) recent_.pop_front();
  return recent_.back().get();
}

CommandQueue::~CommandQueue() = default;

}  // namespace MTL
