#pragma once
// MTL::Fence: orders encoders of one command queue over untracked resources
// (ComputeCommandEncoder::updateFence / waitForFence). metalsim runs a queue's encoders one after
// another, so a fence orders nothing further; the calls are accepted and recorded for nothing.
// Fences do not order command buffers of different queues on a GPU either: events do.
#include <string>

#include "metalsim/Foundation/NSObject.hpp"

namespace MTL {

class Device;

class Fence : public NS::Object {
 public:
  Device* device() const { return device_; }
  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String* label() const { return NS::String::string(label_.c_str()); }

 private:
  friend class Device;
  explicit Fence(Device* device) : device_(device) {}
  ~Fence() override = default;
  Device* device_;
  std::string label_;
};

}  // namespace MTL
