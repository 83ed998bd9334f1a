#pragma once
// MTL::ComputePipelineState: a kernel ready to dispatch, with its reflection.
#include <vector>

#include "metalsim/Metal/MTLLibrary.hpp"

namespace MTL {

class ComputePipelineState : public NS::Object {
 public:
  NS::UInteger maxTotalThreadsPerThreadgroup() const { return max_threads_; }
  NS::UInteger threadExecutionWidth() const { return 32; }
  NS::UInteger staticThreadgroupMemoryLength() const;

  // metalsim's own: the front's reflection of the kernel (include simt/engine/kernel.h to
  // read it), and the constant values.
  const metalsim::engine::KernelInfo& kernel() const { return *kernel_; }
  const std::vector<const void*>& functionConstants() const { return constant_ptrs_; }

 private:
  friend class Device;
  ComputePipelineState(const Function& function, NS::UInteger device_max_threads);
  ~ComputePipelineState() override = default;
  const metalsim::engine::KernelInfo* kernel_;
  NS::UInteger max_threads_;
  std::vector<std::vector<unsigned char>> constants_;
  std::vector<const void*> constant_ptrs_;
};

}  // namespace MTL
