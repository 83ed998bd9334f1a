#include "metalsim/Metal/MTLComputePipeline.hpp"

#include <algorithm>

#include "simt/abi/kernel.h"

namespace MTL {

ComputePipelineState::ComputePipelineState(const Function& function,
                                           NS::UInteger device_max_threads)
    : kernel_(&function.kernel()), max_threads_(device_max_threads) {
  if (kernel_->max_total_threads_per_threadgroup != 0)
    max_threads_ = std::min<NS::UInteger>(max_threads_, kernel_->max_total_threads_per_threadgroup);
  if (const FunctionConstantValues* c = function.constants(); c != nullptr)
    constants_ = c->values();
  constant_ptrs_.resize(constants_.size(), nullptr);
  for (size_t i = 0; i < constants_.size(); ++i)
    if (!constants_[i].empty()) constant_ptrs_[i] = constants_[i].data();
}

NS::UInteger ComputePipelineState::staticThreadgroupMemoryLength() const {
  return kernel_->static_threadgroup_bytes;
}

}  // namespace MTL
