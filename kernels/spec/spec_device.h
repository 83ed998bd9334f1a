#pragma once
// The device, queue and pipelines the specs dispatch on (one per process), plus the few lines
// of metal-cpp host code every spec needs.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/spec/spec.h"
#include "metalsim/Metal.hpp"

namespace metalsim::spec {

class SpecDevice {
 public:
  static SpecDevice& get();

  MTL::Device* device() { return device_.get(); }
  MTL::CommandQueue* queue() { return queue_.get(); }
  // Cached per kernel name; throws std::runtime_error naming a kernel that does not exist.
  MTL::ComputePipelineState* pipeline(const std::string& kernel);

  template <class T>
  NS::SharedPtr<MTL::Buffer> buffer(const std::vector<T>& data) {
    return NS::TransferPtr(device_->newBuffer(data.data(), data.size() * sizeof(T),
                                              MTL::ResourceStorageModeShared));
  }
  NS::SharedPtr<MTL::Buffer> buffer(size_t bytes) {
    return NS::TransferPtr(device_->newBuffer(bytes, MTL::ResourceStorageModeShared));
  }

  // A command buffer whose dispatches run under `options`.
  MTL::CommandBuffer* command_buffer(const engine::ExecutionOptions& options);
  // Commits, waits, and moves the buffer's reports into `result`.
  static void finish(MTL::CommandBuffer* cb, CaseResult& result);

 private:
  SpecDevice();
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  NS::SharedPtr<MTL::Library> library_;
  std::mutex mutex_;
  std::map<std::string, NS::SharedPtr<MTL::ComputePipelineState>> pipelines_;
};

}  // namespace metalsim::spec
