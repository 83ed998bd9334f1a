#include "metalsim/Metal/MTLDevice.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "host/src/autoreleased_error.h"
#include "host/src/gpu_timeline.h"
#include "host/src/pipeline_reflection.h"
#include "metalsim/Metal.hpp"
#include "simt/abi/kernel.h"

namespace MTL {
using metalsim::host::autoreleased_error;

Device::Device(DeviceProfile profile)
    : profile_(std::move(profile)),
      timeline_(std::make_unique<GpuTimeline>()),
      options_(metalsim::ExecutionOptions::from_environment()) {}

Device::~Device() = default;

Device* CreateSystemDefaultDevice() { return new Device(); }

Buffer* Device::newBuffer(NS::UInteger length, ResourceOptions options) {
  auto* b = new Buffer(length);
  b->hazard_tracking_ = hazardTrackingModeOf(options, HazardTrackingModeTracked);
  return b;
}

Buffer* Device::newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options) {
  Buffer* b = newBuffer(length, options);
  if (length > 0) std::memcpy(b->contents(), bytes, length);
  return b;
}

Buffer* Device::newBuffer(const void* pointer, NS::UInteger length, ResourceOptions options,
                          const BufferDeallocator& deallocator) {
  if (pointer == nullptr) {
    std::fprintf(stderr, "metalsim: newBuffer (no copy): the pointer is null; returning nullptr\n");
    return nullptr;
  }
  // Metal's contents() of such a buffer is the caller's (writable) memory too.
  auto* b = new Buffer(const_cast<void*>(pointer), length, deallocator);
  b->hazard_tracking_ = hazardTrackingModeOf(options, HazardTrackingModeTracked);
  return b;
}

CommandQueue* Device::newCommandQueue() { return new CommandQueue(this); }

Library* Device::newDefaultLibrary() { return new Library(); }

ComputePipelineState* Device::newComputePipelineState(Function* function, NS::Error** error) {
  if (function == nullptr) {
    if (error != nullptr)
      *error = autoreleased_error(1, "newComputePipelineState: function is null");
    return nullptr;
  }
  return new ComputePipelineState(*function, profile_.maxThreadsPerThreadgroup);
}

ComputePipelineState* Device::newComputePipelineState(
    const Function* function, PipelineOption, AutoreleasedComputePipelineReflection* reflection,
    NS::Error** error) {
  if (reflection != nullptr) *reflection = nullptr;
  ComputePipelineState* state = newComputePipelineState(const_cast<Function*>(function), error);
  if (state != nullptr && reflection != nullptr)
    *reflection = metalsim::host::reflect_pipeline(state->kernel(), state->functionConstants());
  return state;
}

ComputePipelineState* Device::newComputePipelineState(const ComputePipelineDescriptor* descriptor,
                                                      NS::UInteger options,
                                                      ComputePipelineReflection** reflection,
                                                      NS::Error** error) {
  if (reflection != nullptr) *reflection = nullptr;
  if (descriptor == nullptr || descriptor->computeFunction() == nullptr) {
    if (error != nullptr)
      *error =
          autoreleased_error(1, "newComputePipelineState: the descriptor has no compute function");
    return nullptr;
  }
  ComputePipelineState* state = newComputePipelineState(descriptor->computeFunction(),
                                                        PipelineOption(options), reflection, error);
  if (state != nullptr) state->support_icb_ = descriptor->supportIndirectCommandBuffers();
  return state;
}

LogState* Device::newLogState(const LogStateDescriptor* descriptor, NS::Error** error) {
  if (descriptor != nullptr && descriptor->bufferSize() < 1024) {
    if (error != nullptr)
      *error =
          autoreleased_error(LogStateErrorInvalidSize,
                             "newLogState: bufferSize " + std::to_string(descriptor->bufferSize()) +
                                 " is under the minimum of 1024 bytes");
    return nullptr;
  }
  return new LogState(descriptor != nullptr ? descriptor->level() : LogLevelUndefined);
}

NS::String* Device::name() const { return NS::String::string(profile_.name.c_str()); }

Size Device::maxThreadsPerThreadgroup() const {
  return {profile_.maxThreadsPerThreadgroup, profile_.maxThreadsPerThreadgroup,
          profile_.maxThreadsPerThreadgroup};
}

}  // namespace MTL
