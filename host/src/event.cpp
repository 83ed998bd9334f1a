#include "metalsim/Metal/MTLEvent.hpp"

#include <chrono>
#include <optional>

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
  // UINT64_MAX (MLX passes -1: "never times out") and any timeout past what the clock holds
  // (a year and more here) wait until the value is reached. Converted to the clock as it was,
  // such a timeout overflowed into the past and the wait returned false at once.
  constexpr uint64_t kForever = uint64_t(365) * 24 * 3600 * 1000;
  std::optional<std::chrono::milliseconds> timeout;
  if (timeoutMS < kForever) timeout = std::chrono::milliseconds(timeoutMS);
  return device_->timeline().wait_for_value(this, value, timeout);
}

Event* Device::newEvent() { return new Event(this); }
SharedEvent* Device::newSharedEvent() { return new SharedEvent(this); }
Fence* Device::newFence() { return new Fence(this); }

}  // namespace MTL
