#include "metalsim/Metal/MTLComputeCommandEncoder.hpp"

#include <cstring>

#include "encoded_dispatch.h"
#include "metalsim/Metal.hpp"
#include "simt/abi/kernel.h"

namespace MTL {

static_assert(kBufferBindingSlots == metalsim::abi::kMaxBufferBindings);
static_assert(kThreadgroupBindingSlots == metalsim::abi::kMaxThreadgroupBindings);
static_assert(kTextureBindingSlots == metalsim::abi::kMaxTextureBindings);
static_assert(kSamplerBindingSlots == metalsim::abi::kMaxSamplerBindings);

ComputeCommandEncoder::ComputeCommandEncoder(CommandBuffer* owner, DispatchType type)
    : owner_(owner), type_(type), state_(std::make_unique<EncodedDispatch>()) {}
ComputeCommandEncoder::~ComputeCommandEncoder() = default;

void ComputeCommandEncoder::misuse(const std::string& what) {
  metalsim::report::Report r;
  r.check = metalsim::report::CheckId::api_misuse;
  r.message = what;
  owner_->fail({r});
}

void ComputeCommandEncoder::setComputePipelineState(const ComputePipelineState* state) {
  state_->pipeline = NS::RetainPtr(const_cast<ComputePipelineState*>(state));
}

void ComputeCommandEncoder::setBuffer(const Buffer* buffer, NS::UInteger offset,
                                      NS::UInteger index) {
  if (index >= kBufferBindingSlots) {
    misuse("setBuffer: index " + std::to_string(index) + " is over 30");
    return;
  }
  state_->buffers[index] = {NS::RetainPtr(const_cast<Buffer*>(buffer)), offset, false};
}

void ComputeCommandEncoder::setBufferOffset(NS::UInteger offset, NS::UInteger index) {
  if (index < kBufferBindingSlots) state_->buffers[index].offset = offset;
}

// setBytes copies now, as Metal does: later changes to `bytes` do not reach the kernel. The
// copy is a guarded buffer of its own, so reading past it is caught like any buffer.
void ComputeCommandEncoder::setBytes(const void* bytes, NS::UInteger length, NS::UInteger index) {
  if (index >= kBufferBindingSlots) {
    misuse("setBytes: index " + std::to_string(index) + " is over 30");
    return;
  }
  const NS::UInteger limit = owner_->device()->profile().maxSetBytesLength;
  if (length > limit) {
    misuse("setBytes: " + std::to_string(length) + " bytes at index " + std::to_string(index) +
           " exceed Metal's limit of " + std::to_string(limit) + "; use a buffer");
    return;
  }
  Buffer* copy = owner_->device()->newBuffer(bytes, length, ResourceStorageModeShared);
  state_->buffers[index] = {NS::TransferPtr(copy), 0, true};
}

void ComputeCommandEncoder::setThreadgroupMemoryLength(NS::UInteger length, NS::UInteger index) {
  if (index >= kThreadgroupBindingSlots) {
    misuse("setThreadgroupMemoryLength: index " + std::to_string(index) + " is over 30");
    return;
  }
  state_->threadgroup_lengths[index] = length;
  state_->threadgroup_set[index] = true;
}

void ComputeCommandEncoder::setTexture(const Texture* texture, NS::UInteger index) {
  if (index >= kTextureBindingSlots) {
    misuse("setTexture: index " + std::to_string(index) + " is over 30");
    return;
  }
  state_->textures[index] = NS::RetainPtr(const_cast<Texture*>(texture));
}

void ComputeCommandEncoder::setTextures(const Texture* const textures[], NS::Range range) {
  for (NS::UInteger i = 0; i < range.length; ++i) setTexture(textures[i], range.location + i);
}

void ComputeCommandEncoder::setSamplerState(const SamplerState* sampler, NS::UInteger index) {
  if (index >= kSamplerBindingSlots) {
    misuse("setSamplerState: index " + std::to_string(index) + " is over 15");
    return;
  }
  state_->samplers[index] = NS::RetainPtr(const_cast<SamplerState*>(sampler));
}

void ComputeCommandEncoder::setSamplerStates(const SamplerState* const samplers[],
                                             NS::Range range) {
  for (NS::UInteger i = 0; i < range.length; ++i) setSamplerState(samplers[i], range.location + i);
}

void ComputeCommandEncoder::encode(EncodedDispatch d) {
  if (ended_) {
    misuse("dispatch encoded after endEncoding");
    return;
  }
  DispatchOrder order;
  order.concurrent = type_ == DispatchTypeConcurrent && open_;
  order.fence = order.concurrent && fence_;
  order.fence_textures = order.fence && fence_textures_;
  if (order.fence) order.fenced = std::move(fenced_);
  fenced_.clear();
  fence_ = fence_textures_ = false;
  open_ = true;
  owner_->recording_->dispatches.push_back(std::move(d));
  owner_->recording_->orders.push_back(std::move(order));
}

void ComputeCommandEncoder::memoryBarrier(BarrierScope scope) {
  if (ended_) {
    misuse("memoryBarrier after endEncoding");
    return;
  }
  if ((scope & BarrierScopeBuffers) != 0) {  // every buffer: the concurrent group ends
    open_ = false;
    fence_ = fence_textures_ = false;
    fenced_.clear();
    return;
  }
  fence_ = true;  // textures only: every texture of the group (CommandBuffer::run_group)
  fence_textures_ = fence_textures_ || (scope & BarrierScopeTextures) != 0;
}

void ComputeCommandEncoder::memoryBarrier(const Resource* const resources[], NS::UInteger count) {
  if (ended_) {
    misuse("memoryBarrier after endEncoding");
    return;
  }
  fence_ = true;
  for (NS::UInteger i = 0; i < count; ++i) {
    const Buffer* buffer = dynamic_cast<const Buffer*>(resources[i]);
    if (const auto* texture = dynamic_cast<const Texture*>(resources[i]))
      buffer = texture->storageBuffer();  // the pixels' bytes, all of them
    if (buffer == nullptr || buffer->contents() == nullptr) continue;
    const char* begin = static_cast<const char*>(buffer->contents());
    fenced_.push_back({begin, begin + buffer->length()});
  }
}

void ComputeCommandEncoder::dispatchThreadgroups(Size threadgroupsPerGrid,
                                                 Size threadsPerThreadgroup) {
  EncodedDispatch d = *state_;
  d.threadgroups = threadgroupsPerGrid;
  d.threads_per_threadgroup = threadsPerThreadgroup;
  d.by_threads = false;
  encode(std::move(d));
}

void ComputeCommandEncoder::dispatchThreads(Size threadsPerGrid, Size threadsPerThreadgroup) {
  EncodedDispatch d = *state_;
  d.threads = threadsPerGrid;
  d.threads_per_threadgroup = threadsPerThreadgroup;
  d.by_threads = true;
  encode(std::move(d));
}

void ComputeCommandEncoder::executeCommandsInBuffer(const IndirectCommandBuffer* commands,
                                                    NS::Range range) {
  if (ended_) {
    misuse("executeCommandsInBuffer after endEncoding");
    return;
  }
  if (commands == nullptr) {
    misuse("executeCommandsInBuffer: the indirect command buffer is null");
    return;
  }
  if (range.maxRange() > commands->size() || range.maxRange() < range.location) {
    misuse("executeCommandsInBuffer: commands " + std::to_string(range.location) + " + " +
           std::to_string(range.length) + " are past the " + std::to_string(commands->size()) +
           " of " + commands->describe());
    return;
  }
  CommandRecording& recording = *owner_->recording_;
  recording.indirect.push_back({NS::RetainPtr(const_cast<IndirectCommandBuffer*>(commands)),
                                range.location, range.length, recording.dispatches.size(),
                                *state_});
  // Its commands form groups of their own: the next dispatch of this encoder follows them.
  open_ = false;
  fence_ = fence_textures_ = false;
  fenced_.clear();
}

void ComputeCommandEncoder::endEncoding() { ended_ = true; }

}  // namespace MTL
