#pragma once
#include <deque>

#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class CommandBuffer;
class Device;

class CommandQueue : public NS::Object {
 public:
  // Autoreleased in metal-cpp: the queue keeps the most recent command buffers alive
  // (retain() one to keep it longer).
  CommandBuffer* commandBuffer();
  Device*        device() const { return device_; }

 private:
  friend class Device;
  explicit CommandQueue(Device* device) : device_(device) {}
  ~CommandQueue() override;
  Device* device_;
  std::deque<NS::SharedPtr<CommandBuffer>> recent_;
};

}  // namespace MTL
