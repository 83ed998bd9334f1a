#include "host/model/command_sink.h"

#include <algorithm>

namespace metalsim::model {

void IndirectSink::setBuffer(const MTL::Buffer* buffer, size_t offset, uint32_t index) {
  buffers_.at(index) = {buffer, offset};
  buffer_end_ = std::max(buffer_end_, index + 1);
}

void IndirectSink::setThreadgroupMemoryLength(size_t length, uint32_t index) {
  threadgroup_lengths_.at(index) = length;
  threadgroup_end_ = std::max(threadgroup_end_, index + 1);
}

MTL::IndirectComputeCommand* IndirectSink::next() {
  MTL::IndirectComputeCommand* c = commands_->indirectComputeCommand(dispatches_++);
  c->reset();
  c->setComputePipelineState(pipeline_);
  for (uint32_t i = 0; i < buffer_end_; ++i)
    if (buffers_[i].buffer != nullptr)
      c->setKernelBuffer(buffers_[i].buffer, buffers_[i].offset, i);
  for (uint32_t i = 0; i < threadgroup_end_; ++i)
    if (threadgroup_lengths_[i] != 0) c->setThreadgroupMemoryLength(threadgroup_lengths_[i], i);
  c->setBarrier();
  return c;
}

NS::SharedPtr<MTL::IndirectCommandBuffer> IndirectSink::make_commands(MTL::Device* device,
                                                                      size_t count) {
  auto d = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
  d->setCommandTypes(MTL::IndirectCommandType(MTL::IndirectCommandTypeConcurrentDispatch |
                                              MTL::IndirectCommandTypeConcurrentDispatchThreads));
  d->setInheritPipelineState(false);
  d->setInheritBuffers(false);
  d->setMaxKernelBufferBindCount(MTL::kBufferBindingSlots);
  return NS::TransferPtr(
      device->newIndirectCommandBuffer(d.get(), count, MTL::ResourceStorageModeShared));
}

}  // namespace metalsim::model
