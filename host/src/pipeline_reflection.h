#pragma once
// A pipeline's reflection (MTL::ComputePipelineReflection) from the front's reflection of its
// kernel and the pipeline's function constants.
#include <span>

#include "metalsim/Metal/MTLArgument.hpp"
#include "simt/abi/kernel.h"

namespace metalsim::host {

// Autoreleased, as metal-cpp returns it.
MTL::ComputePipelineReflection* reflect_pipeline(const abi::KernelInfo& kernel,
                                                 std::span<const void* const> constants);

}  // namespace metalsim::host
