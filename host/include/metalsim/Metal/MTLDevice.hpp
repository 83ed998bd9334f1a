#pragma once
// MTL::Device: the CPU standing in for an Apple GPU, with the limits of its profile.
#include <string>

#include "metalsim/Metal/MTLTypes.hpp"
#include "simt/base/execution_options.h"

namespace MTL {

class Buffer;
class CommandQueue;
class ComputePipelineState;
class Function;
class Library;

// The limits Metal enforces, as on Apple M-series GPUs.
struct DeviceProfile {
  std::string name = "metalsim (Apple M-series profile)";
  NS::UInteger maxThreadgroupMemoryLength = 32 * 1024;
  NS::UInteger maxThreadsPerThreadgroup = 1024;
  NS::UInteger threadExecutionWidth = 32;
  NS::UInteger maxSetBytesLength = 4 * 1024;
  NS::UInteger maxBufferBindings = 31;
};

class Device : public NS::Object {
 public:
  explicit Device(DeviceProfile profile = {});

  Buffer* newBuffer(NS::UInteger length, ResourceOptions options);
  Buffer* newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options);
  CommandQueue* newCommandQueue();
  Library* newDefaultLibrary();
  ComputePipelineState* newComputePipelineState(Function* function, NS::Error** error);

  NS::String* name() const;
  NS::UInteger maxThreadgroupMemoryLength() const { return profile_.maxThreadgroupMemoryLength; }
  Size maxThreadsPerThreadgroup() const;
  const DeviceProfile& profile() const { return profile_; }

  // metalsim's own: the execution options (schedule, checks, workers, watchdog, mode) every
  // new command buffer starts from; a command buffer may change its own copy
  // (CommandBuffer::setExecutionOptions) without touching other command buffers. Starts from
  // the environment (METALSIM_CHECKS, METALSIM_SCHEDULE, METALSIM_THREADS, METALSIM_WATCHDOG,
  // METALSIM_MODE), in the spirit of MTL_SHADER_VALIDATION=1.
  metalsim::engine::ExecutionOptions& executionOptions() { return options_; }
  const metalsim::engine::ExecutionOptions& executionOptions() const { return options_; }

 private:
  ~Device() override = default;
  DeviceProfile profile_;
  metalsim::engine::ExecutionOptions options_;
};

// The process's device; the caller owns the returned reference, as in metal-cpp.
Device* CreateSystemDefaultDevice();

}  // namespace MTL
