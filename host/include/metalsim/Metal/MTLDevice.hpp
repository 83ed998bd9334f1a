#pragma once
// MTL::Device: the CPU standing in for an Apple GPU, with the limits of its profile.
#include <memory>
#include <string>

#include "metalsim/ExecutionOptions.hpp"
#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSURL.hpp"
#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLDeviceProfile.hpp"
#include "metalsim/Metal/MTLHeap.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class Buffer;
class CommandQueue;
class CompileOptions;
class ComputePipelineDescriptor;
class ComputePipelineReflection;
using AutoreleasedComputePipelineReflection = ComputePipelineReflection*;
class ComputePipelineState;
class Event;
class Fence;
class GpuTimeline;
class SharedEvent;
enum PipelineOption : NS::UInteger;  // MTLComputePipeline.hpp
class Function;
class IndirectCommandBuffer;
class IndirectCommandBufferDescriptor;
class Library;
class ResidencySet;
class ResidencySetDescriptor;
class LogState;
class LogStateDescriptor;
class SamplerDescriptor;
class SamplerState;
class Texture;
class TextureDescriptor;

class Device : public NS::Object {
 public:
  explicit Device(DeviceProfile profile = {});

  Buffer* newBuffer(NS::UInteger length, ResourceOptions options);
  Buffer* newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options);
  // metal-cpp's newBufferWithBytesNoCopy: a buffer over the caller's `length` bytes at `pointer`,
  // not copied (contents() is `pointer`); `deallocator`, when not empty, is called with them
  // when the buffer is released. Metal wants a page-aligned pointer and length; metalsim takes
  // any, but bounds past the memory's last 16-byte granule are not checked (MTLBuffer.hpp).
  // nullptr (and why, on stderr) for a null pointer.
  Buffer* newBuffer(const void* pointer, NS::UInteger length, ResourceOptions options,
                    const BufferDeallocator& deallocator);
  // A texture in memory of its own (texture.cpp); nullptr, and why on stderr, for a descriptor
  // metalsim cannot make (docs/textures.md).
  Texture* newTexture(const TextureDescriptor* descriptor);
  SamplerState* newSamplerState(const SamplerDescriptor* descriptor);
  CommandQueue* newCommandQueue();
  Library* newDefaultLibrary();
  // Compiles MSL at run time (host/src/runtime_library.cpp, docs/porting.md): the front, then
  // the kernel compiler into a shared object, cached in $XDG_CACHE_HOME/metalsim (or
  // ~/.cache/metalsim) by a hash of the source, its headers, the options and the toolchain.
  // `options` may be nullptr (Metal's defaults: fast math, no macros). On failure: nullptr, and
  // `error` reads `file:line: error: message` ("program_source" names the string).
  Library* newLibrary(const NS::String* source, const CompileOptions* options, NS::Error** error);
  // metal-cpp loads a .metallib from `url`; metalsim reads a .metal file and compiles it as above
  // (default options), errors naming the file.
  Library* newLibrary(const NS::URL* url, NS::Error** error);
  // metalsim's own: a .metal file with compile options (macros, math mode).
  Library* newLibrary(const NS::URL* url, const CompileOptions* options, NS::Error** error);
  ComputePipelineState* newComputePipelineState(const Function* function, NS::Error** error);
  // With the pipeline's reflection (autoreleased) when `reflection` is not null.
  ComputePipelineState* newComputePipelineState(const Function* function, PipelineOption options,
                                                AutoreleasedComputePipelineReflection* reflection,
                                                NS::Error** error);
  // A log state for shader logging (MTLLogState.hpp); nullptr with `error` when the
  // descriptor's bufferSize is under 1 KiB.
  LogState* newLogState(const LogStateDescriptor* descriptor, NS::Error** error);
  ComputePipelineState* newComputePipelineState(const ComputePipelineDescriptor* descriptor,
                                                NS::UInteger options,
                                                ComputePipelineReflection** reflection,
                                                NS::Error** error);
  // Room for `maxCount` compute commands. A descriptor Metal would reject (no compute command
  // type, render types, more bindings than the device has) still gives a buffer, whose
  // problems() fail any command buffer that executes it.
  IndirectCommandBuffer* newIndirectCommandBuffer(const IndirectCommandBufferDescriptor* descriptor,
                                                  NS::UInteger maxCount, ResourceOptions options);

  // Heaps, events and fences (MTLHeap.hpp, MTLEvent.hpp, MTLFence.hpp); nullptr for a heap of
  // size 0.
  Heap* newHeap(const HeapDescriptor* descriptor);
  SizeAndAlign heapBufferSizeAndAlign(NS::UInteger length, ResourceOptions options) const;
  Event* newEvent();
  SharedEvent* newSharedEvent();
  Fence* newFence();
  // metalsim's own: the order of the device's command buffers (host/src/gpu_timeline.h).
  GpuTimeline& timeline() const { return *timeline_; }

  NS::String* name() const;
  NS::UInteger maxThreadgroupMemoryLength() const { return profile_.maxThreadgroupMemoryLength; }
  Size maxThreadsPerThreadgroup() const;
  const DeviceProfile& profile() const { return profile_; }

  // ---- What metal-cpp programs (MLX) ask a device, answered from its profile
  // (MTLDeviceProfile.hpp, docs/host_api.md; issue 26 item 2).
  Architecture* architecture() const;  // not owned by the caller
  bool supportsFamily(GPUFamily family) const { return profile_.supportsFamily(family); }
  uint64_t registryID() const { return profile_.registryID; }
  uint64_t recommendedMaxWorkingSetSize() const { return profile_.recommendedMaxWorkingSetSize; }
  NS::UInteger maxBufferLength() const { return profile_.maxBufferLength; }
  bool hasUnifiedMemory() const { return profile_.hasUnifiedMemory; }
  bool isLowPower() const { return false; }
  bool isHeadless() const { return false; }
  bool isRemovable() const { return false; }
  DeviceLocation location() const { return DeviceLocationBuiltIn; }
  // A queue; metalsim completes each command buffer in commit(), so no more than one is ever in
  // flight and `maxCommandBufferCount` never has to hold one back.
  CommandQueue* newCommandQueue(NS::UInteger maxCommandBufferCount);
  // Metal's newLibraryWithFile: the file at `path`, read as newLibrary(url, error) reads it
  // (nullptr and LibraryErrorFileNotFound when it cannot be read).
  Library* newLibrary(const NS::String* path, NS::Error** error);
  // A residency set (MTLResidencySet.hpp): accepted and kept, with nothing to do on a CPU.
  ResidencySet* newResidencySet(const ResidencySetDescriptor* descriptor, NS::Error** error);
  // ---- end of issue 26's block

  // metalsim's own: the execution options (schedule, checks, workers, watchdog, mode) every
  // new command buffer starts from; a command buffer may change its own copy
  // (CommandBuffer::setExecutionOptions) without touching other command buffers. Starts from
  // the environment (METALSIM_CHECKS, METALSIM_SCHEDULE, METALSIM_THREADS, METALSIM_WATCHDOG,
  // METALSIM_MODE), in the spirit of MTL_SHADER_VALIDATION=1.
  const metalsim::ExecutionOptions& executionOptions() const { return options_; }
  void setExecutionOptions(const metalsim::ExecutionOptions& options) { options_ = options; }

 private:
  ~Device() override;
  DeviceProfile profile_;
  std::unique_ptr<GpuTimeline> timeline_;
  metalsim::ExecutionOptions options_;
};

// The process's device; the caller owns the returned reference, as in metal-cpp.
Device* CreateSystemDefaultDevice();
// Every device: one, of the default profile (made as CreateSystemDefaultDevice makes it). The
// caller owns the array (a Copy function); the array holds the device.
NS::Array* CopyAllDevices();

}  // namespace MTL
