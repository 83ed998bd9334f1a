#pragma once
// MTL::Device: the CPU standing in for an Apple GPU, with the limits of its profile.
#include <string>

#include "metalsim/Metal/MTLTypes.hpp"
#include "simt/engine/dispatch.h"

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

  Buffer*               newBuffer(NS::UInteger length, ResourceOptions options);
  Buffer*               newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options);
  CommandQueue*         newCommandQueue();
  Library*              newDefaultLibrary();
  ComputePipelineState* newComputePipelineState(Function* function, NS::Error** error);

  NS::String*           name() const;
  NS::UInteger          maxThreadgroupMemoryLength() const { return profile_.maxThreadgroupMemoryLength; }
  Size                  maxThreadsPerThreadgroup() const;
  const DeviceProfile&  profile() const { return profile_; }

  // metalsim's own: schedule, checks, workers and watchdog for every dispatch of this device.
  // Starts from the environment (METALSIM_CHECKS, METALSIM_SCHEDULE, METALSIM_THREADS,
  // METALSIM_WATCHDOG), in the spirit of MTL_SHADER_VALIDATION=1.
  metalsim::engine::ExecutionOptions& executionOptions() { return options_; }

 private:
  ~Device() override = default;
  DeviceProfile profile_;
  metalsim::engine::ExecutionOptions options_;
};

// The process's device; the caller owns the returned reference, as in metal-cpp.
Device* CreateSystemDefaultDevice();

}  // namespace MTL
