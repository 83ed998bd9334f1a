#pragma once
// MTL::Event and MTL::SharedEvent: a 64-bit value that command buffers signal
// (CommandBuffer::encodeSignalEvent) and wait for (encodeWait), as on a GPU: the commands
// encoded after a wait run only once the event's value has reached the one waited for. metalsim
// runs a command buffer at commit(); one that reaches a wait its event has not reached stops
// there (status Scheduled) and goes on when another command buffer, or the host
// (SharedEvent::setSignaledValue), signals enough; its queue's later command buffers wait behind
// it. A wait that nothing ever satisfies ends waitUntilCompleted() after the watchdog's time with
// the buffer in error, naming the event and both values (docs/host_api.md#events).
#include <cstdint>
#include <string>
#include <vector>

#include "metalsim/Foundation/NSObject.hpp"

namespace MTL {

class Device;

class Event : public NS::Object {
 public:
  Device* device() const { return device_; }
  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String* label() const { return NS::String::string(label_.c_str()); }
  // metalsim's own: "event 'label'" or "an event" in reports.
  std::string describe() const;

 protected:
  friend class Device;
  friend class CommandBuffer;
  friend class GpuTimeline;
  // One signal: by command buffer `buffer`'s step `step` (buffer 0: the host), at the timeline's
  // clock `when`.
  struct Signal {
    uint64_t buffer = 0;
    int64_t step = -1;
    uint64_t value = 0;
    uint64_t when = 0;
  };
  explicit Event(Device* device) : device_(device) {}
  ~Event() override = default;
  Device* device_;
  std::string label_;
  // Under the device's timeline lock (host/src/gpu_timeline.h): the value, the latest signals.
  uint64_t value_ = 0;
  std::vector<Signal> signals_;
};

class SharedEvent : public Event {
 public:
  uint64_t signaledValue() const;
  // The host signals: command buffers waiting for up to `value` go on (on this thread).
  void setSignaledValue(uint64_t value);
  // Blocks until the value reaches `value` or `timeoutMS` passes; false on the timeout.
  // UINT64_MAX (or a year and more) never times out.
  bool waitUntilSignaledValue(uint64_t value, uint64_t timeoutMS);

 private:
  friend class Device;
  explicit SharedEvent(Device* device) : Event(device) {}
  ~SharedEvent() override = default;
};

}  // namespace MTL
