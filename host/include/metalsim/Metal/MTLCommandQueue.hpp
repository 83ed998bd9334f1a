#pragma once
#include <cstdint>
#include <deque>

#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class CommandBuffer;
class CommandBufferDescriptor;
class Device;

class CommandQueue : public NS::Object {
 public:
  // Autoreleased in metal-cpp: the queue keeps the most recent command buffers alive
  // (retain() one to keep it longer).
  CommandBuffer* commandBuffer();
  // With the descriptor's settings (metalsim: its execution options, if set).
  CommandBuffer* commandBuffer(const CommandBufferDescriptor* descriptor);
  Device* device() const { return device_; }

 private:
  friend class Device;
  explicit CommandQueue(Device* device);
  ~CommandQueue() override;
  Device* device_;
  uint32_t number_;  // in the device's timeline (host/src/gpu_timeline.h)
  std::deque<NS::SharedPtr<CommandBuffer>> recent_;
};

}  // namespace MTL
