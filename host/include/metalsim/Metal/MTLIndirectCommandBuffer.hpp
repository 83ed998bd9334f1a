#pragma once
// MTL::IndirectCommandBuffer for compute, as metal-cpp spells it: commands recorded once on the
// host (indirectComputeCommand(i)) and executed, as often as wanted, by
// ComputeCommandEncoder::executeCommandsInBuffer(icb, range). A command buffer reads the
// commands when it runs (at commit), as the GPU does, validates each one exactly as a direct
// dispatch (host/src/dispatch_translation.cpp) and runs them, those between two barriers
// (setBarrier) as a concurrent group (MTLCommandBuffer.hpp). Render commands are not supported:
// metalsim has no render pipeline.
//
//   auto desc = NS::TransferPtr(MTL::IndirectCommandBufferDescriptor::alloc()->init());
//   desc->setCommandTypes(MTL::IndirectCommandTypeConcurrentDispatch);
//   desc->setInheritPipelineState(false);
//   desc->setInheritBuffers(false);
//   desc->setMaxKernelBufferBindCount(4);
//   auto icb = NS::TransferPtr(device->newIndirectCommandBuffer(desc.get(), 16, 0));
//   MTL::IndirectComputeCommand* c = icb->indirectComputeCommand(0);
//   c->setComputePipelineState(pso); c->setKernelBuffer(buf, 0, 0);
//   c->concurrentDispatchThreadgroups(grid, group); c->setBarrier();
//   ...
//   encoder->executeCommandsInBuffer(icb.get(), NS::Range::Make(0, 1));
#include <string>
#include <vector>

#include "metalsim/Foundation/NSRange.hpp"
#include "metalsim/Metal/MTLIndirectCommandEncoder.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

enum IndirectCommandType : NS::UInteger {
  IndirectCommandTypeDraw = 1 << 0,
  IndirectCommandTypeDrawIndexed = 1 << 1,
  IndirectCommandTypeDrawPatches = 1 << 2,
  IndirectCommandTypeDrawIndexedPatches = 1 << 3,
  IndirectCommandTypeConcurrentDispatch = 1 << 5,
  IndirectCommandTypeConcurrentDispatchThreads = 1 << 6,
};

// Every field starts at zero or false: Apple asks that each be set explicitly.
class IndirectCommandBufferDescriptor : public NS::Object {
 public:
  static IndirectCommandBufferDescriptor* alloc() { return new IndirectCommandBufferDescriptor; }
  IndirectCommandBufferDescriptor* init() { return this; }

  IndirectCommandType commandTypes() const { return command_types_; }
  void setCommandTypes(IndirectCommandType types) { command_types_ = types; }
  bool inheritPipelineState() const { return inherit_pipeline_; }
  void setInheritPipelineState(bool inherit) { inherit_pipeline_ = inherit; }
  bool inheritBuffers() const { return inherit_buffers_; }
  void setInheritBuffers(bool inherit) { inherit_buffers_ = inherit; }
  NS::UInteger maxKernelBufferBindCount() const { return max_kernel_buffers_; }
  void setMaxKernelBufferBindCount(NS::UInteger count) { max_kernel_buffers_ = count; }

 private:
  ~IndirectCommandBufferDescriptor() override = default;
  IndirectCommandType command_types_ = IndirectCommandType(0);
  bool inherit_pipeline_ = false;
  bool inherit_buffers_ = false;
  NS::UInteger max_kernel_buffers_ = 0;
};

class IndirectCommandBuffer : public NS::Object {
 public:
  NS::UInteger size() const { return commands_.size(); }
  // The command at `commandIndex`. Past size(), a command whose every call is rejected, and
  // the buffer remembers the bad index (problems()).
  IndirectComputeCommand* indirectComputeCommand(NS::UInteger commandIndex);
  // Resets the commands of `range` (IndirectComputeCommand::reset).
  void reset(NS::Range range);

  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String* label() const;

  // metalsim's own: the descriptor's settings, the commands, and what is wrong with the buffer
  // as a whole (its descriptor, an index past its size); a command buffer that executes any of
  // its commands fails on these.
  IndirectCommandType commandTypes() const { return command_types_; }
  bool inheritPipelineState() const { return inherit_pipeline_; }
  bool inheritBuffers() const { return inherit_buffers_; }
  NS::UInteger maxKernelBufferBindCount() const { return max_kernel_buffers_; }
  const IndirectComputeCommand& command(NS::UInteger index) const { return commands_[index]; }
  const std::vector<std::string>& problems() const { return problems_; }
  // "indirect command buffer 'label'" (or without the label when it has none).
  std::string describe() const;

 private:
  friend class Device;
  IndirectCommandBuffer(const IndirectCommandBufferDescriptor& descriptor, NS::UInteger count,
                        NS::UInteger max_bindings);
  ~IndirectCommandBuffer() override = default;

  IndirectCommandType command_types_;
  bool inherit_pipeline_, inherit_buffers_;
  NS::UInteger max_kernel_buffers_;
  std::vector<IndirectComputeCommand> commands_;
  IndirectComputeCommand out_of_range_{this};
  std::vector<std::string> problems_;
  std::string label_;
};

// Why `state` cannot be used by an indirect command buffer's command.
std::string unsupported_pipeline(const ComputePipelineState& state);

}  // namespace MTL
