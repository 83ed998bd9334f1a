#include "kernels/spec/pipeline_cache.h"

#include <stdexcept>

namespace metalsim::spec {

PipelineCache::PipelineCache(MTL::Device* device)
    : device_(device), library_(NS::TransferPtr(device->newDefaultLibrary())) {}

MTL::ComputePipelineState* PipelineCache::get(const std::string& kernel) {
  std::lock_guard lock(mutex_);
  auto& slot = pipelines_[kernel];
  if (!slot) {
    auto fn = NS::TransferPtr(library_->newFunction(kernel.c_str()));
    if (!fn) throw std::runtime_error("no kernel named '" + kernel + "' is linked");
    NS::Error* error = nullptr;
    slot = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    if (!slot)
      throw std::runtime_error(
          "pipeline for '" + kernel + "' failed" +
          (error != nullptr ? std::string(": ") + error->localizedDescription()->utf8String()
                            : std::string()));
  }
  return slot.get();
}

}  // namespace metalsim::spec
