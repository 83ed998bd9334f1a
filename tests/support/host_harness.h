#pragma once
// A few lines of metal-cpp host code shared by tests: make buffers, dispatch one kernel,
// return the finished command buffer.
#include <functional>
#include <string>
#include <vector>

#include "metalsim/Metal.hpp"

namespace metalsim::testing {

class Harness {
 public:
  Harness() : device_(NS::TransferPtr(MTL::CreateSystemDefaultDevice())) {
    queue_ = NS::TransferPtr(device_->newCommandQueue());
    library_ = NS::TransferPtr(device_->newDefaultLibrary());
    device_->executionOptions() = engine::ExecutionOptions{};
    device_->executionOptions().checks = check::CheckSet::all();
    device_->executionOptions().checks.race = false;
  }

  MTL::Device* device() { return device_.get(); }
  engine::ExecutionOptions& options() { return device_->executionOptions(); }

  template <class T>
  NS::SharedPtr<MTL::Buffer> buffer(const std::vector<T>& data) {
    return NS::TransferPtr(device_->newBuffer(data.data(), data.size() * sizeof(T),
                                              MTL::ResourceStorageModeShared));
  }
  NS::SharedPtr<MTL::Buffer> buffer(size_t bytes) {
    return NS::TransferPtr(device_->newBuffer(bytes, MTL::ResourceStorageModeShared));
  }

  NS::SharedPtr<MTL::ComputePipelineState> pipeline(const char* kernel) {
    auto fn = NS::TransferPtr(library_->newFunction(kernel));
    NS::Error* error = nullptr;
    return NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
  }

  // Encodes with `bind`, dispatches threadgroups (or threads), commits, waits.
  MTL::CommandBuffer* run(const char* kernel, const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                          MTL::Size grid, MTL::Size tg, bool by_threads = false) {
    auto pso = pipeline(kernel);
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    bind(enc);
    if (by_threads) enc->dispatchThreads(grid, tg);
    else enc->dispatchThreadgroups(grid, tg);
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    return cb;
  }

  static std::string reports(const MTL::CommandBuffer* cb) {
    std::string text;
    for (const auto& r : cb->reports()) text += r.format();
    return text;
  }
  // How many of the command buffer's reports are of check `id`.
  static size_t count(const MTL::CommandBuffer* cb, check::CheckId id) {
    size_t n = 0;
    for (const auto& r : cb->reports()) n += r.check == id;
    return n;
  }

 private:
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  NS::SharedPtr<MTL::Library> library_;
};

}  // namespace metalsim::testing
