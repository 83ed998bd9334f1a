#pragma once
// The compute pipelines of the linked kernels, by name, made once per case runner and shared by
// its cases (CaseContext::pipeline).
#include <map>
#include <mutex>
#include <string>

#include "metalsim/Metal.hpp"

namespace metalsim::spec {

// Pipelines by kernel name, made once per runner.
class PipelineCache {
 public:
  explicit PipelineCache(MTL::Device* device);
  // Throws std::runtime_error naming a kernel that is not linked or fails to build.
  MTL::ComputePipelineState* get(const std::string& kernel);

 private:
  MTL::Device* device_;
  NS::SharedPtr<MTL::Library> library_;
  std::mutex mutex_;
  std::map<std::string, NS::SharedPtr<MTL::ComputePipelineState>> pipelines_;
};

}  // namespace metalsim::spec
