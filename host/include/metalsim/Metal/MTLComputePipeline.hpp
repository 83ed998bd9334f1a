#pragma once
// MTL::ComputePipelineState: a kernel ready to dispatch, with its reflection.
#include <string>
#include <vector>

#include "metalsim/Metal/MTLArgument.hpp"
#include "metalsim/Metal/MTLLibrary.hpp"

namespace MTL {

// What newComputePipelineState reflects into its reflection out-parameter: metalsim always
// fills in the bindings with their types (MTLArgument.hpp) when one is asked for.
enum PipelineOption : NS::UInteger {
  PipelineOptionNone = 0,
  PipelineOptionArgumentInfo = 1,
  PipelineOptionBindingInfo = 1,
  PipelineOptionBufferTypeInfo = 2,
};

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
  // Kept and given back (MTLLibrary.hpp, LinkedFunctions): nothing to link on metalsim.
  LinkedFunctions* linkedFunctions() const { return linked_.get(); }
  void setLinkedFunctions(const LinkedFunctions* functions) {
    linked_ = NS::RetainPtr(const_cast<LinkedFunctions*>(functions));
  }
  // As metal-cpp's: X::alloc()->init()->autorelease() is still an X* (issue 26 item 2).
  ComputePipelineDescriptor* autorelease() {
    NS::autorelease(this);
    return this;
  }

 private:
  ~ComputePipelineDescriptor() override = default;
  NS::SharedPtr<Function> function_;
  NS::SharedPtr<LinkedFunctions> linked_;
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

  // metalsim's own, for tools that list kernels (metalsim list): where the kernel is declared
  // ("file.metal:line"), whether it can run in lane loops ("" when it can, else why not, naming
  // the line; docs/lanes.md), whether the access-check pass made it an uninstrumented fast
  // variant (docs/architecture.md, "Two variants of every kernel").
  std::string sourceLocation() const;
  std::string laneLoopsUnavailable() const;
  bool hasFastVariant() const;

  // metalsim's own: the front's reflection of the kernel (include simt/abi/kernel.h to
  // read it), and the constant values.
  const metalsim::abi::KernelInfo& kernel() const { return *kernel_; }
  const std::vector<const void*>& functionConstants() const { return constant_ptrs_; }

 private:
  friend class Device;
  ComputePipelineState(const Function& function, NS::UInteger device_max_threads);
  ~ComputePipelineState() override = default;
  const metalsim::abi::KernelInfo* kernel_;
  NS::UInteger max_threads_;
  bool support_icb_ = false;
  std::vector<std::vector<unsigned char>> constants_;
  std::vector<const void*> constant_ptrs_;
};

}  // namespace MTL
