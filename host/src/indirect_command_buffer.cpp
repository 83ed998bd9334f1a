#include "metalsim/Metal/MTLIndirectCommandBuffer.hpp"

#include "encoded_dispatch.h"
#include "metalsim/Metal.hpp"
#include "simt/abi/kernel.h"

namespace MTL {
namespace {

std::string index_text(NS::UInteger index) { return std::to_string(index); }

// What is wrong with a descriptor for a compute indirect command buffer, in words.
std::vector<std::string> descriptor_problems(const IndirectCommandBufferDescriptor& d,
                                             NS::UInteger max_bindings) {
  constexpr NS::UInteger compute =
      IndirectCommandTypeConcurrentDispatch | IndirectCommandTypeConcurrentDispatchThreads;
  std::vector<std::string> problems;
  if ((d.commandTypes() & compute) == 0)
    problems.push_back(
        "its descriptor's commandTypes has no compute type (IndirectCommandTypeConcurrentDispatch "
        "or IndirectCommandTypeConcurrentDispatchThreads)");
  if ((d.commandTypes() & ~compute) != 0)
    problems.push_back(
        "its descriptor's commandTypes mixes render types with compute ones (Metal forbids it; "
        "metalsim has no render commands)");
  if (d.maxKernelBufferBindCount() > max_bindings)
    problems.push_back("its descriptor's maxKernelBufferBindCount of " +
                       index_text(d.maxKernelBufferBindCount()) + " is over the device's " +
                       index_text(max_bindings) + " buffer bindings");
  return problems;
}

}  // namespace

std::string unsupported_pipeline(const ComputePipelineState& state) {
  return "the pipeline of kernel '" + std::string(state.kernel().name) +
         "' was not made for indirect command buffers (make it from a ComputePipelineDescriptor "
         "with setSupportIndirectCommandBuffers(true))";
}

// ------------------------------------------------------------------ IndirectComputeCommand

IndirectComputeCommand::IndirectComputeCommand(const IndirectCommandBuffer* owner)
    : owner_(owner), dispatch_(std::make_unique<EncodedDispatch>()) {}
IndirectComputeCommand::IndirectComputeCommand(IndirectComputeCommand&&) noexcept = default;
IndirectComputeCommand& IndirectComputeCommand::operator=(IndirectComputeCommand&&) noexcept =
    default;
IndirectComputeCommand::~IndirectComputeCommand() = default;

void IndirectComputeCommand::setComputePipelineState(const ComputePipelineState* state) {
  if (owner_->inheritPipelineState()) {
    reject("setComputePipelineState on a command whose descriptor inherits the pipeline state");
    return;
  }
  if (state != nullptr && !state->supportIndirectCommandBuffers()) {
    reject(unsupported_pipeline(*state));
    return;
  }
  dispatch_->pipeline = NS::RetainPtr(const_cast<ComputePipelineState*>(state));
}

void IndirectComputeCommand::setKernelBuffer(const Buffer* buffer, NS::UInteger offset,
                                             NS::UInteger index) {
  const auto call = [&] {
    return "setKernelBuffer(buffer, " + index_text(offset) + ", " + index_text(index) + ")";
  };
  if (owner_->inheritBuffers()) {
    reject(call() + " on a command whose descriptor inherits its buffers");
    return;
  }
  if (index >= owner_->maxKernelBufferBindCount()) {
    reject(call() + ": index " + index_text(index) +
           " is not below the descriptor's maxKernelBufferBindCount of " +
           index_text(owner_->maxKernelBufferBindCount()));
    return;
  }
  dispatch_->buffers[index] = {NS::RetainPtr(const_cast<Buffer*>(buffer)), offset, false};
}

void IndirectComputeCommand::setThreadgroupMemoryLength(NS::UInteger length, NS::UInteger index) {
  if (index >= kThreadgroupBindingSlots) {
    reject("setThreadgroupMemoryLength: index " + index_text(index) + " is over 30");
    return;
  }
  dispatch_->threadgroup_lengths[index] = length;
  dispatch_->threadgroup_set[index] = true;
}

void IndirectComputeCommand::dispatch(bool by_threads, Size grid, Size threadsPerThreadgroup) {
  const IndirectCommandType needed = by_threads ? IndirectCommandTypeConcurrentDispatchThreads
                                                : IndirectCommandTypeConcurrentDispatch;
  if ((owner_->commandTypes() & needed) == 0) {
    reject(
        std::string(by_threads ? "concurrentDispatchThreads" : "concurrentDispatchThreadgroups") +
        " on a buffer whose descriptor's commandTypes lacks " +
        (by_threads ? "IndirectCommandTypeConcurrentDispatchThreads"
                    : "IndirectCommandTypeConcurrentDispatch"));
    return;
  }
  (by_threads ? dispatch_->threads : dispatch_->threadgroups) = grid;
  dispatch_->threads_per_threadgroup = threadsPerThreadgroup;
  dispatch_->by_threads = by_threads;
  has_dispatch_ = true;
}

void IndirectComputeCommand::concurrentDispatchThreadgroups(Size threadgroupsPerGrid,
                                                            Size threadsPerThreadgroup) {
  dispatch(false, threadgroupsPerGrid, threadsPerThreadgroup);
}

void IndirectComputeCommand::concurrentDispatchThreads(Size threadsPerGrid,
                                                       Size threadsPerThreadgroup) {
  dispatch(true, threadsPerGrid, threadsPerThreadgroup);
}

void IndirectComputeCommand::reset() {
  *dispatch_ = {};
  has_dispatch_ = false;
  barrier_ = false;
  problems_.clear();
}

// ------------------------------------------------------------------ IndirectCommandBuffer

IndirectCommandBuffer::IndirectCommandBuffer(const IndirectCommandBufferDescriptor& d,
                                             NS::UInteger count, NS::UInteger max_bindings)
    : command_types_(d.commandTypes()),
      inherit_pipeline_(d.inheritPipelineState()),
      inherit_buffers_(d.inheritBuffers()),
      max_kernel_buffers_(d.maxKernelBufferBindCount()),
      problems_(descriptor_problems(d, max_bindings)) {
  commands_.reserve(count);
  for (NS::UInteger i = 0; i < count; ++i) commands_.push_back(IndirectComputeCommand(this));
}

IndirectComputeCommand* IndirectCommandBuffer::indirectComputeCommand(NS::UInteger commandIndex) {
  if (commandIndex < commands_.size()) return &commands_[commandIndex];
  problems_.push_back("indirectComputeCommand(" + index_text(commandIndex) +
                      ") is past its size of " + index_text(commands_.size()));
  return &out_of_range_;
}

void IndirectCommandBuffer::reset(NS::Range range) {
  if (range.maxRange() > commands_.size() || range.maxRange() < range.location) {
    problems_.push_back("reset of commands " + index_text(range.location) + " + " +
                        index_text(range.length) + " is past its size of " +
                        index_text(commands_.size()));
    return;
  }
  for (NS::UInteger i = range.location; i < range.maxRange(); ++i) commands_[i].reset();
}

NS::String* IndirectCommandBuffer::label() const { return NS::String::string(label_.c_str()); }

std::string IndirectCommandBuffer::describe() const {
  return label_.empty() ? "indirect command buffer" : "indirect command buffer '" + label_ + "'";
}

// ------------------------------------------------------------------ Device

IndirectCommandBuffer* Device::newIndirectCommandBuffer(
    const IndirectCommandBufferDescriptor* descriptor, NS::UInteger maxCount, ResourceOptions) {
  const auto none = NS::TransferPtr(IndirectCommandBufferDescriptor::alloc()->init());
  return new IndirectCommandBuffer(descriptor != nullptr ? *descriptor : *none, maxCount,
                                   profile_.maxBufferBindings);
}

}  // namespace MTL
