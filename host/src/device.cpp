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

namespace {

// Metal makes no buffer longer than the device's maxBufferLength.
bool too_long(NS::UInteger length, const DeviceProfile& profile) {
  if (length <= profile.maxBufferLength) return false;
  std::fprintf(stderr,
               "metalsim: newBuffer: %llu bytes is over the device's maxBufferLength of %llu; "
               "returning nullptr\n",
               static_cast<unsigned long long>(length),
               static_cast<unsigned long long>(profile.maxBufferLength));
  return true;
}

}  // namespace

Buffer* Device::newBuffer(NS::UInteger length, ResourceOptions options) {
  if (too_long(length, profile_)) return nullptr;
  auto* b = new Buffer(length);
  b->hazard_tracking_ = hazardTrackingModeOf(options, HazardTrackingModeTracked);
  b->storage_mode_ = storageModeOf(options);
  return b;
}

Buffer* Device::newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options) {
  Buffer* b = newBuffer(length, options);
  if (b != nullptr && length > 0) std::memcpy(b->contents(), bytes, length);
  return b;
}

Buffer* Device::newBuffer(const void* pointer, NS::UInteger length, ResourceOptions options,
                          const BufferDeallocator& deallocator) {
  if (pointer == nullptr) {
    std::fprintf(stderr, "metalsim: newBuffer (no copy): the pointer is null; returning nullptr\n");
    return nullptr;
  }
  if (too_long(length, profile_)) return nullptr;
  // Metal's contents() of such a buffer is the caller's (writable) memory too.
  auto* b = new Buffer(const_cast<void*>(pointer), length, deallocator);
  b->hazard_tracking_ = hazardTrackingModeOf(options, HazardTrackingModeTracked);
  b->storage_mode_ = storageModeOf(options);
  return b;
}

CommandQueue* Device::newCommandQueue() { return newCommandQueue(64); }

Library* Device::newDefaultLibrary() { return new Library(); }

ComputePipelineState* Device::newComputePipelineState(const Function* function, NS::Error** error) {
  if (function == nullptr) {
    if (error != nullptr)
      *error = autoreleased_error(1, "newComputePipelineState: function is null");
    return nullptr;
  }
  // Metal makes no pipeline of an unspecialised function (newFunction(name)) that uses function
  // constants: that function only reports them. Its constants would otherwise read as unset.
  if (!function->specialised()) {
    const std::vector<metalsim::host::UsedConstant> used =
        metalsim::host::used_function_constants(function->kernel());
    if (!used.empty()) {
      if (error != nullptr)
        *error = autoreleased_error(
            LibraryErrorCompileFailure,
            metalsim::host::unspecialised_function_message(function->kernel(), used));
      return nullptr;
    }
  }
  return new ComputePipelineState(*function, profile_.maxThreadsPerThreadgroup);
}

ComputePipelineState* Device::newComputePipelineState(
    const Function* function, PipelineOption, AutoreleasedComputePipelineReflection* reflection,
    NS::Error** error) {
  if (reflection != nullptr) *reflection = nullptr;
  ComputePipelineState* state = newComputePipelineState(function, error);
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
