#pragma once
// What the encoders record, private to the host API: the bindings in force at each dispatch,
// the executions of indirect command buffers, and how each dispatch is ordered after the one
// before it. The public headers name these types only as incomplete ones: a user's program sees
// Metal's calls, never metalsim's recording (issue 22 item 5). The command buffer turns each
// recorded dispatch into the engine's request (dispatch_translation.h).
#include <array>
#include <utility>
#include <vector>

#include "metalsim/Metal.hpp"

namespace MTL {

// One binding of a [[buffer(N)]] slot.
struct BoundBuffer {
  NS::SharedPtr<Buffer> buffer;  // set by setBuffer, or the private copy made by setBytes
  NS::UInteger offset = 0;
  bool from_set_bytes = false;
};

// A dispatch as encoded: the pipeline, every binding in force, the grid.
struct EncodedDispatch {
  NS::SharedPtr<ComputePipelineState> pipeline;
  std::array<BoundBuffer, kBufferBindingSlots> buffers;
  std::array<NS::UInteger, kThreadgroupBindingSlots> threadgroup_lengths{};
  std::array<bool, kThreadgroupBindingSlots> threadgroup_set{};
  std::array<NS::SharedPtr<Texture>, kTextureBindingSlots> textures;
  std::array<NS::SharedPtr<SamplerState>, kSamplerBindingSlots> samplers;
  Size threadgroups;  // dispatchThreadgroups: the grid in threadgroups
  Size threads;       // dispatchThreads: the grid in threads
  Size threads_per_threadgroup;
  bool by_threads = false;
};

// One executeCommandsInBuffer: the commands run before the direct dispatch numbered
// `before_dispatch` (or after the last one), with what the encoder had bound then for the
// commands that inherit it.
struct EncodedIndirect {
  NS::SharedPtr<IndirectCommandBuffer> commands;
  NS::UInteger first = 0, count = 0;
  size_t before_dispatch = 0;
  EncodedDispatch inherited;
};

// How a direct dispatch follows the one encoded before it (ComputeCommandEncoder::encode).
struct DispatchOrder {
  bool concurrent = false;      // may overlap it: a concurrent encoder's, no full barrier between
  bool fence = false;           // a memoryBarrier between them over some resources only
  bool fence_textures = false;  // ... over every texture (BarrierScopeTextures)
  std::vector<std::pair<const char*, const char*>> fenced;  // their bytes
};

// One encodeSignalEvent or encodeWait: between the direct dispatches numbered
// `before_dispatch - 1` and `before_dispatch`, after the first `indirect_before` executions of
// indirect command buffers.
struct EncodedEvent {
  NS::SharedPtr<Event> event;
  uint64_t value = 0;
  bool wait = false;
  size_t before_dispatch = 0;
  size_t indirect_before = 0;
};

// Everything a command buffer's encoders recorded, in encoding order.
struct CommandRecording {
  std::vector<EncodedDispatch> dispatches;
  std::vector<DispatchOrder> orders;  // one per dispatch
  std::vector<EncodedIndirect> indirect;
  std::vector<EncodedEvent> events;
};

}  // namespace MTL
