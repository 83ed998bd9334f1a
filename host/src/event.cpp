#include "metalsim/Metal/MTLEvent.hpp"

#include "gpu_timeline.h"
#include "metalsim/Metal/MTLDevice.hpp"
#include "metalsim/Metal/MTLFence.hpp"

namespace MTL {

std::string Event::describe() const {
  return label_.empty() ? std::string("an event") : "event '" + label_ + "'";
}

uint64_t SharedEvent::signaledValue() const { return device_->timeline().value(this); }

void SharedEvent::setSignaledValue(uint64_t value) {
  device_->timeline().signal(this, value, nullptr, 0);
}

bool SharedEvent::waitUntilSignaledValue(uint64_t value, uint64_t timeoutMS) {
  return device_->timeline().wait_for_value(this, value, double(timeoutMS) / 1000.0);
}

Event* Device::newEvent() { return new Event(this); }
SharedEvent* Device::newSharedEvent() { return new SharedEvent(this); }
Fence* Device::newFence() { return new Fence(this); }

}  // namespace MTL
