#pragma once
// Dispatches a kernel of the test library through the host API (metal-cpp), as a program would:
// shared by the front's run tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "metalsim/Metal.hpp"

namespace metalsim::front::testing {

// `n` floats uniform in [-4, 4), from `seed`.
inline std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

struct HostRun {
  NS::SharedPtr<MTL::Device> device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  NS::SharedPtr<MTL::CommandQueue> queue = NS::TransferPtr(device->newCommandQueue());
  NS::SharedPtr<MTL::Library> library = NS::TransferPtr(device->newDefaultLibrary());

  template <class T>
  NS::SharedPtr<MTL::Buffer> buffer(const std::vector<T>& v) {
    return NS::TransferPtr(
        device->newBuffer(v.data(), v.size() * sizeof(T), MTL::ResourceStorageModeShared));
  }

  MTL::CommandBuffer* dispatch(const char* name, MTL::FunctionConstantValues* constants,
                               const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                               MTL::Size groups, MTL::Size tg) {
    // Without constants, specialised with none given (every constant undefined): Metal makes
    // no pipeline of an unspecialised function that uses function constants.
    NS::Error* error = nullptr;
    auto none = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
    auto fn = NS::TransferPtr(library->newFunction(NS::String::string(name, NS::UTF8StringEncoding),
                                                   constants ? constants : none.get(), &error));
    EXPECT_TRUE(fn) << name;
    auto pso = NS::TransferPtr(device->newComputePipelineState(fn.get(), &error));
    EXPECT_TRUE(pso) << name;
    MTL::CommandBuffer* cb = queue->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    bind(enc);
    enc->dispatchThreadgroups(groups, tg);
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    return cb;
  }
};

}  // namespace metalsim::front::testing
