#include "metalsim/Metal/MTLDevice.hpp"

#include <cstring>

#include "metalsim/Metal.hpp"

namespace MTL {

Device::Device(DeviceProfile profile)
    : profile_(std::move(profile)), options_(metalsim::engine::ExecutionOptions::from_environment()) {}

Device* CreateSystemDefaultDevice() { return new Device(); }

Buffer* Device::newBuffer(NS::UInteger length, ResourceOptions) { return new Buffer(length); }

Buffer* Device::newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options) {
  Buffer* b = newBuffer(length, options);
  if (length > 0) std::memcpy(b->contents(), bytes, length);
  return b;
}

CommandQueue* Device::newCommandQueue() { return new CommandQueue(this); }

Library* Device::newDefaultLibrary() { return new Library(); }

ComputePipelineState* Device::newComputePipelineState(Function* function, NS::Error** error) {
  if (function == nullptr) {
    if (error != nullptr) *error = new NS::Error(1, "newComputePipelineState: function is null");
    return nullptr;
  }
  return new ComputePipelineState(*function, profile_.maxThreadsPerThreadgroup);
}

NS::String* Device::name() const { return NS::String::string(profile_.name.c_str()); }

Size Device::maxThreadsPerThreadgroup() const {
  return {profile_.maxThreadsPerThreadgroup, profile_.maxThreadsPerThreadgroup,
          profile_.maxThreadsPerThreadgroup};
}

}  // namespace MTL
