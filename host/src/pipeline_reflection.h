#pragma once
// A pipeline's reflection (MTL::ComputePipelineReflection) from the front's reflection of its
// kernel and the pipeline's function constants.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metalsim/Metal/MTLArgument.hpp"
#include "simt/abi/kernel.h"

namespace metalsim::host {

// The scalar or vector type Metal names for `type` ("float", "uint3", "device const float*"),
// else DataTypeNone (a struct, or a type Metal's DataType does not list).
MTL::DataType data_type_of(std::string_view type);

// A function constant a kernel uses (abi::used_function_constants), with its declaration.
struct UsedConstant {
  const abi::FunctionConstantInfo* info;
  bool required;
};
// Those `kernel` reads or tests, in index order. Where the argument-reads pass did not see the
// kernel (abi::argument_reads_known), every constant its file declares, none required.
std::vector<UsedConstant> used_function_constants(const abi::KernelInfo& kernel);

// Device::newComputePipelineState's error for an unspecialised function that uses the
// constants `used`: the kernel and each constant (name, type, index, where it is declared).
std::string unspecialised_function_message(const abi::KernelInfo& kernel,
                                           const std::vector<UsedConstant>& used);

// Autoreleased, as metal-cpp returns it.
MTL::ComputePipelineReflection* reflect_pipeline(const abi::KernelInfo& kernel,
                                                 std::span<const void* const> constants);

}  // namespace metalsim::host
