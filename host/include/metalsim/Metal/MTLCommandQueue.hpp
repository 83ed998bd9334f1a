#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class CommandBuffer;
class CommandBufferDescriptor;
class Device;
class ResidencySet;

class CommandQueue : public NS::Object {
 public:
  // Autoreleased, as in metal-cpp: with an NS::AutoreleasePool open on this thread, the pool
  // owns it; with none, the queue keeps the most recent command buffers alive (retain() one to
  // keep it longer).
  CommandBuffer* commandBuffer();
  // With the descriptor's settings (metalsim: its execution options, if set).
  CommandBuffer* commandBuffer(const CommandBufferDescriptor* descriptor);
  Device* device() const { return device_; }

  // ---- metal-cpp's calls MLX makes (issue 26 item 2; docs/host_api.md)
  // A command buffer whose retainedReferences() is false. metalsim's encoders still retain
  // what they bind (the program must keep it alive in Metal; here it lives as long as the
  // command buffer).
  CommandBuffer* commandBufferWithUnretainedReferences();
  NS::String* label() const { return label_.get(); }
  void setLabel(const NS::String* label);
  // As given to Device::newCommandQueue(maxCommandBufferCount) (64 otherwise, Metal's default).
  NS::UInteger maxCommandBufferCount() const { return max_count_; }
  // Residency sets (MTLResidencySet.hpp): kept (retained) and listed; nothing to make resident.
  void addResidencySet(const ResidencySet* set);
  void addResidencySets(const ResidencySet* const sets[], NS::UInteger count);
  void removeResidencySet(const ResidencySet* set);
  void removeResidencySets(const ResidencySet* const sets[], NS::UInteger count);
  // metalsim's own: the sets added and not removed, in the order added.
  const std::vector<NS::SharedPtr<ResidencySet>>& residencySets() const { return sets_; }
  // ---- end of issue 26's block

 private:
  friend class Device;
  CommandQueue(Device* device, NS::UInteger max_count);
  ~CommandQueue() override;
  CommandBuffer* keep(CommandBuffer* cb);
  Device* device_;
  NS::UInteger max_count_;
  uint32_t number_;  // in the device's timeline (host/src/gpu_timeline.h)
  std::deque<NS::SharedPtr<CommandBuffer>> recent_;
  NS::SharedPtr<NS::String> label_;
  std::vector<NS::SharedPtr<ResidencySet>> sets_;
};

}  // namespace MTL
