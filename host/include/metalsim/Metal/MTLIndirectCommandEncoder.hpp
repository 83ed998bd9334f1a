#pragma once
// MTL::IndirectComputeCommand: one command of an indirect command buffer, recorded on the host
// with metal-cpp's calls (setComputePipelineState, setKernelBuffer, setThreadgroupMemoryLength,
// concurrentDispatchThreadgroups or concurrentDispatchThreads, setBarrier). It holds the same
// recording a ComputeCommandEncoder snapshots, so a command buffer validates and runs it
// exactly as a direct dispatch. A call Metal's validation layer would reject (an index past
// the descriptor's maxKernelBufferBindCount, a command type the descriptor does not allow, a
// binding the descriptor says is inherited) is remembered and fails the command buffer that
// executes this command, naming the call.
#include <memory>
#include <string>
#include <vector>

#include "metalsim/Metal/MTLComputeCommandEncoder.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class IndirectCommandBuffer;

class IndirectComputeCommand {
 public:
  void setComputePipelineState(const ComputePipelineState* state);
  void setKernelBuffer(const Buffer* buffer, NS::UInteger offset, NS::UInteger index);
  void setThreadgroupMemoryLength(NS::UInteger length, NS::UInteger index);
  void concurrentDispatchThreadgroups(Size threadgroupsPerGrid, Size threadsPerThreadgroup);
  void concurrentDispatchThreads(Size threadsPerGrid, Size threadsPerThreadgroup);
  // The command waits for the commands before it in the execution. Without it, it may run at the
  // same time as those back to the last barrier (a concurrent group: run in the schedule's order,
  // checked by race.dispatch with `race` on; MTLCommandBuffer.hpp).
  void setBarrier() { barrier_ = true; }
  void clearBarrier() { barrier_ = false; }
  // Back to an empty command: executing it does nothing.
  void reset();

  // metalsim's own: whether a dispatch was recorded, and with a barrier.
  bool hasDispatch() const { return has_dispatch_; }
  bool hasBarrier() const { return barrier_; }
  // The calls that were rejected, in words; empty when the command is valid to encode.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  friend class IndirectCommandBuffer;
  friend class CommandBuffer;
  explicit IndirectComputeCommand(const IndirectCommandBuffer* owner);

 public:  // std::vector<IndirectComputeCommand> moves them (defined where EncodedDispatch is whole)
  IndirectComputeCommand(IndirectComputeCommand&&) noexcept;
  IndirectComputeCommand& operator=(IndirectComputeCommand&&) noexcept;
  ~IndirectComputeCommand();

 private:
  const EncodedDispatch& dispatch() const { return *dispatch_; }
  void reject(std::string what) { problems_.push_back(std::move(what)); }
  void dispatch(bool by_threads, Size grid, Size threadsPerThreadgroup);

  const IndirectCommandBuffer* owner_;
  std::unique_ptr<EncodedDispatch> dispatch_;  // what was recorded
  bool has_dispatch_ = false;
  bool barrier_ = false;
  std::vector<std::string> problems_;
};

}  // namespace MTL
