#pragma once
// MTL::ComputeCommandEncoder: binds arguments and encodes dispatches, with Metal's argument
// order (setBuffer(buffer, offset, index)). Each dispatch snapshots the bindings in force.
// A serial encoder's dispatches run in order; a concurrent one's (DispatchTypeConcurrent) between
// two memoryBarrier calls form a concurrent group, which a GPU may overlap: metalsim runs them one
// at a time, in the order of the schedule (reversed under `--schedule reversed`), and with `race`
// on reports a device location one writes and another reads or writes (race.dispatch).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metalsim/Foundation/NSRange.hpp"
#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLComputePipeline.hpp"
#include "metalsim/Metal/MTLResource.hpp"
#include "metalsim/Metal/MTLSampler.hpp"
#include "metalsim/Metal/MTLTexture.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class Fence;

class CommandBuffer;
class IndirectCommandBuffer;

// How an encoder's dispatches are ordered (metal-cpp's MTLCommandBuffer.hpp).
enum DispatchType : NS::UInteger {
  DispatchTypeSerial = 0,
  DispatchTypeConcurrent = 1,
};

// What a memoryBarrier orders (metal-cpp's MTLCommandEncoder.hpp).
enum BarrierScope : NS::UInteger {
  BarrierScopeBuffers = 1 << 0,
  BarrierScopeTextures = 1 << 1,
  BarrierScopeRenderTargets = 1 << 2,
};

// Metal's argument tables: buffer(0) .. buffer(30), threadgroup(0) .. threadgroup(30).
inline constexpr NS::UInteger kBufferBindingSlots = 31;
inline constexpr NS::UInteger kThreadgroupBindingSlots = 31;
// texture(0) .. texture(30), sampler(0) .. sampler(15).
inline constexpr NS::UInteger kTextureBindingSlots = 31;
inline constexpr NS::UInteger kSamplerBindingSlots = 16;

// The bindings in force and the grid of one dispatch, as recorded (host/src/encoded_dispatch.h).
struct EncodedDispatch;

class ComputeCommandEncoder : public NS::Object {
 public:
  void setComputePipelineState(const ComputePipelineState* state);
  void setBuffer(const Buffer* buffer, NS::UInteger offset, NS::UInteger index);
  void setBufferOffset(NS::UInteger offset, NS::UInteger index);
  void setBytes(const void* bytes, NS::UInteger length, NS::UInteger index);
  void setThreadgroupMemoryLength(NS::UInteger length, NS::UInteger index);
  // [[texture(index)]], index 0..30, and [[sampler(index)]], index 0..15 (retained).
  void setTexture(const Texture* texture, NS::UInteger index);
  void setTextures(const Texture* const textures[], NS::Range range);
  void setSamplerState(const SamplerState* sampler, NS::UInteger index);
  void setSamplerStates(const SamplerState* const samplers[], NS::Range range);
  void dispatchThreadgroups(Size threadgroupsPerGrid, Size threadsPerThreadgroup);
  void dispatchThreads(Size threadsPerGrid, Size threadsPerThreadgroup);
  // Runs the commands of `range` of an indirect command buffer at this point of the encoder,
  // each validated as a direct dispatch when the command buffer runs. The pipeline state and
  // buffers in force here are what the commands inherit when its descriptor says so.
  void executeCommandsInBuffer(const IndirectCommandBuffer* commands, NS::Range range);
  // DispatchTypeSerial unless made by CommandBuffer::computeCommandEncoder(DispatchTypeConcurrent).
  DispatchType dispatchType() const { return type_; }
  // Between the dispatches of a concurrent encoder: the dispatches after it see what those
  // before it wrote. With BarrierScopeBuffers, every buffer (the concurrent group ends, textures
  // with it); BarrierScopeTextures alone, every texture; a list of resources, those. A serial
  // encoder's dispatches are ordered anyway.
  void memoryBarrier(BarrierScope scope);
  void memoryBarrier(const Resource* const resources[], NS::UInteger count);
  // Residency: every buffer is always resident on the CPU, so nothing to do.
  void useResource(const NS::Object*, ResourceUsage) {}
  // Fences order encoders of one queue, which metalsim runs in order anyway (MTLFence.hpp).
  void updateFence(const Fence*) {}
  void waitForFence(const Fence*) {}
  void endEncoding();

 private:
  friend class CommandBuffer;
  ComputeCommandEncoder(CommandBuffer* owner, DispatchType type);
  ~ComputeCommandEncoder() override;
  void encode(EncodedDispatch d);
  void misuse(const std::string& what);

  CommandBuffer* owner_;
  DispatchType type_;
  std::unique_ptr<EncodedDispatch> state_;  // the bindings in force
  bool ended_ = false;
  // A concurrent encoder's: a dispatch since the last barrier over every buffer (the next one
  // joins its group); a barrier over some resources since the last dispatch, and their bytes.
  bool open_ = false;
  bool fence_ = false;
  bool fence_textures_ = false;
  std::vector<std::pair<const char*, const char*>> fenced_;
};

}  // namespace MTL
