#include "metalsim/Metal/MTLCommandQueue.hpp"

#include <algorithm>

#include "gpu_timeline.h"
#include "metalsim/Metal/MTLCommandBuffer.hpp"
#include "metalsim/Metal/MTLDevice.hpp"
#include "metalsim/Metal/MTLResidencySet.hpp"

namespace MTL {
namespace {
constexpr size_t kRecentCommandBuffers = 64;
}

// A queue keeps its device (as a Metal queue does): its timeline outlives the queue.
CommandQueue::CommandQueue(Device* device, NS::UInteger max_count)
    : device_(device), max_count_(max_count), number_(device->timeline().add_queue()) {
  device_->retain();
}

CommandBuffer* CommandQueue::commandBuffer() { return commandBuffer(nullptr); }

CommandBuffer* CommandQueue::commandBuffer(const CommandBufferDescriptor* descriptor) {
  const bool own_options = descriptor != nullptr && descriptor->hasExecutionOptions();
  auto* cb = new CommandBuffer(
      device_, own_options ? descriptor->executionOptions() : device_->executionOptions());
  cb->queue_ = this;
  cb->queue_number_ = number_;
  if (descriptor != nullptr) {
    cb->setLogState(descriptor->logState());
    cb->retained_references_ = descriptor->retainedReferences();
  }
  return keep(cb);
}

CommandBuffer* CommandQueue::commandBufferWithUnretainedReferences() {
  CommandBuffer* cb = commandBuffer(nullptr);
  cb->retained_references_ = false;
  return cb;
}

// The open autorelease pool owns a new command buffer, as in Metal; without one, the queue
// keeps the most recent.
CommandBuffer* CommandQueue::keep(CommandBuffer* cb) {
  if (NS::AutoreleasePool::innermost() != nullptr) {
    NS::autorelease(cb);
    return cb;
  }
  recent_.push_back(NS::TransferPtr(cb));
  if (recent_.size() > kRecentCommandBuffers) recent_.pop_front();
  return cb;
}

void CommandQueue::setLabel(const NS::String* label) {
  label_ = NS::RetainPtr(const_cast<NS::String*>(label));
}

void CommandQueue::addResidencySet(const ResidencySet* set) { addResidencySets(&set, 1); }

void CommandQueue::addResidencySets(const ResidencySet* const sets[], NS::UInteger count) {
  for (NS::UInteger i = 0; i < count; ++i) {
    auto* set = const_cast<ResidencySet*>(sets[i]);
    if (set != nullptr &&
        std::none_of(sets_.begin(), sets_.end(), [&](const auto& s) { return s.get() == set; }))
      sets_.push_back(NS::RetainPtr(set));
  }
}

void CommandQueue::removeResidencySet(const ResidencySet* set) { removeResidencySets(&set, 1); }

void CommandQueue::removeResidencySets(const ResidencySet* const sets[], NS::UInteger count) {
  for (NS::UInteger i = 0; i < count; ++i)
    std::erase_if(sets_, [&](const auto& s) { return s.get() == sets[i]; });
}

CommandQueue::~CommandQueue() {
  recent_.clear();  // its command buffers go before the device
  device_->timeline().remove_queue();
  device_->release();
}

}  // namespace MTL
