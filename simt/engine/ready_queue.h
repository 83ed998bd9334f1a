#pragma once
// The lanes of a threadgroup that are ready to run, first in first out. A lane is in the queue
// at most once (it leaves when it runs, and is queued again only after it blocked), so a ring of
// the threadgroup's largest size never overflows.
#include <cstdint>

#include "simt/abi/builtin.h"

namespace metalsim::engine {

class ReadyQueue {
 public:
  static constexpr uint32_t kCapacity = abi::kMaxThreadsPerThreadgroup;

  void clear() { head_ = tail_ = 0; }
  bool empty() const { return head_ == tail_; }
  uint16_t front() const { return slots_[head_ & kMask]; }
  void pop() { ++head_; }
  void push(uint16_t lane) { slots_[tail_++ & kMask] = lane; }

 private:
  static constexpr uint32_t kMask = kCapacity - 1;
  uint32_t head_ = 0;  // both count up; the slot is the count modulo the capacity
  uint32_t tail_ = 0;
  uint16_t slots_[kCapacity] = {};
};

}  // namespace metalsim::engine
