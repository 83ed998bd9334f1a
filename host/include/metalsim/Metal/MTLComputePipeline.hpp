#pragma once
// MTL::ComputePipelineState: a kernel ready to dispatch, with its reflection.
#include <vector>

#include "metalsim/Metal/MTLLibrary.hpp"

namespace MTL {

enum PipelineOption : NS::UInteger {
  PipelineOptionNone = 0,
};

class ComputePipelineReflection;  // metalsim reflects through ComputePipelineState::kernel()
using AutoreleasedComputePipelineReflection = ComputePipelineReflection*;

// What newComputePipelineState(descriptor, ...) makes a pipeline from: the function, and
// whether the pipeline may be used by indirect command buffers (Metal requires it).
class ComputePipelineDescriptor : public NS::Object {
 public:
  static ComputePipelineDescriptor* alloc() { return new ComputePipelineDescriptor; }
  ComputePipelineDescriptor* init() { return this; }
  Function* computeFunction() const { return function_.get(); }
  void setComputeFunction(const Function* function) {
    function_ = NS::RetainPtr(const_cast<Function*>(function));
  }
  bool supportIndirectCommandBuffers() const { return support_icb_; }
  void setSupportIndirectCommandBuffers(bool support) { support_icb_ = support; }

 private:
  ~ComputePipelineDescriptor() override = default;
  NS::SharedPtr<Function> function_;
  bool support_icb_ = false;
};

class ComputePipelineState : public NS::Object {
 public:
  NS::UInteger maxTotalThreadsPerThreadgroup() const { return max_threads_; }
  NS::UInteger threadExecutionWidth() const { return 32; }
  NS::UInteger staticThreadgroupMemoryLength() const;
  // Made from a descriptor with setSupportIndirectCommandBuffers(true): an indirect command
  // buffer's commands may use it.
  bool supportIndirectCommandBuffers() const { return support_icb_; }

  // metalsim's own: the front's reflection of the kernel (include simt/abi/kernel.h to
  // read it), and the constant values.
  const metalsim::engine::KernelInfo& kernel() const { return *kernel_; }
  const std::vector<const void*>& functionConstants() const { return constant_ptrs_; }

 private:
  friend class Device;
  ComputePipelineState(const Function& function, NS::UInteger device_max_threads);
  ~ComputePipelineState() override = default;
  const metalsim::engine::KernelInfo* kernel_;
  NS::UInteger max_threads_;
  bool support_icb_ = false;
  std::vector<std::vector<unsigned char>> constants_;
  std::vector<const void*> constant_ptrs_;
};

}  // namespace MTL
