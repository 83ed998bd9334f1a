#pragma once
// Where the model's encode helpers put their dispatches: a compute command encoder (the direct
// path), the commands of an indirect command buffer (capture: the same helpers record
// forward_token once), or nowhere but a count (to size the indirect command buffer). The calls
// are the encoder's, so a helper reads the same whichever sink it writes to.
#include <array>
#include <cstddef>
#include <cstdint>

#include "metalsim/Metal.hpp"

namespace metalsim::model {

class CommandSink {
 public:
  virtual ~CommandSink() = default;
  virtual void setComputePipelineState(const MTL::ComputePipelineState* state) = 0;
  virtual void setBuffer(const MTL::Buffer* buffer, size_t offset, uint32_t index) = 0;
  virtual void setThreadgroupMemoryLength(size_t length, uint32_t index) = 0;
  virtual void dispatchThreadgroups(MTL::Size threadgroups, MTL::Size threadsPerThreadgroup) = 0;
  virtual void dispatchThreads(MTL::Size threads, MTL::Size threadsPerThreadgroup) = 0;
  // How many dispatches were encoded so far: the index the next one gets.
  size_t dispatches() const { return dispatches_; }

 protected:
  size_t dispatches_ = 0;
};

class EncoderSink final : public CommandSink {
 public:
  explicit EncoderSink(MTL::ComputeCommandEncoder* encoder) : encoder_(encoder) {}
  void setComputePipelineState(const MTL::ComputePipelineState* state) override {
    encoder_->setComputePipelineState(state);
  }
  void setBuffer(const MTL::Buffer* buffer, size_t offset, uint32_t index) override {
    encoder_->setBuffer(buffer, offset, index);
  }
  void setThreadgroupMemoryLength(size_t length, uint32_t index) override {
    encoder_->setThreadgroupMemoryLength(length, index);
  }
  void dispatchThreadgroups(MTL::Size groups, MTL::Size group) override {
    encoder_->dispatchThreadgroups(groups, group);
    ++dispatches_;
  }
  void dispatchThreads(MTL::Size threads, MTL::Size group) override {
    encoder_->dispatchThreads(threads, group);
    ++dispatches_;
  }

 private:
  MTL::ComputeCommandEncoder* encoder_;
};

class CountingSink final : public CommandSink {
 public:
  void setComputePipelineState(const MTL::ComputePipelineState*) override {}
  void setBuffer(const MTL::Buffer*, size_t, uint32_t) override {}
  void setThreadgroupMemoryLength(size_t, uint32_t) override {}
  void dispatchThreads(MTL::Size, MTL::Size) override { ++dispatches_; }
  void dispatchThreadgroups(MTL::Size, MTL::Size) override { ++dispatches_; }
};

// Dispatch i becomes command i of the indirect command buffer, with everything bound at that
// point, as the encoder's snapshot would have it, and a barrier (each step reads what the one
// before it wrote).
class IndirectSink final : public CommandSink {
 public:
  explicit IndirectSink(MTL::IndirectCommandBuffer* commands) : commands_(commands) {}
  void setComputePipelineState(const MTL::ComputePipelineState* state) override {
    pipeline_ = state;
  }
  void setBuffer(const MTL::Buffer* buffer, size_t offset, uint32_t index) override;
  void setThreadgroupMemoryLength(size_t length, uint32_t index) override;
  void dispatchThreadgroups(MTL::Size groups, MTL::Size group) override {
    next()->concurrentDispatchThreadgroups(groups, group);
  }
  void dispatchThreads(MTL::Size threads, MTL::Size group) override {
    next()->concurrentDispatchThreads(threads, group);
  }

  // The descriptor IndirectSink records into: both dispatch kinds, nothing inherited, every
  // binding slot.
  static NS::SharedPtr<MTL::IndirectCommandBuffer> make_commands(MTL::Device* device, size_t count);

 private:
  struct Binding {
    const MTL::Buffer* buffer = nullptr;
    size_t offset = 0;
  };
  // The next command, reset, with the state in force; the caller adds the dispatch.
  MTL::IndirectComputeCommand* next();

  MTL::IndirectCommandBuffer* commands_;
  const MTL::ComputePipelineState* pipeline_ = nullptr;
  std::array<Binding, MTL::kBufferBindingSlots> buffers_{};
  std::array<size_t, MTL::kThreadgroupBindingSlots> threadgroup_lengths_{};
  uint32_t buffer_end_ = 0, threadgroup_end_ = 0;  // one past the highest index set
};

}  // namespace metalsim::model
