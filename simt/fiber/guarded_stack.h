#pragma once
// Fiber stacks: mmap'd, with a PROT_NONE guard page below the usable range so an overflow
// faults instead of corrupting a neighbour. StackPool hands them out per worker and takes
// them back, so a dispatch of a million threadgroups maps each stack once.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace metalsim::fiber {

// The system's page size: what a guard page spans (these stacks', the threadgroup arena's).
size_t page_size();
// `n` rounded up to a multiple of `to`.
constexpr size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

class GuardedStack {
 public:
  // `color`: bytes left unused at the top, so that the tops of many stacks (where lanes
  // switch) do not all fall into the same cache sets.
  explicit GuardedStack(size_t usable_bytes, size_t color = 0);
  ~GuardedStack();
  GuardedStack(const GuardedStack&) = delete;
  GuardedStack& operator=(const GuardedStack&) = delete;

  void* top() const { return static_cast<char*>(usable_) + size(); }  // stacks grow down
  void* bottom() const { return usable_; }
  size_t size() const { return usable_size_ - color_; }
  bool guard_contains(const void* address) const;

 private:
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  void* usable_ = nullptr;
  size_t usable_size_ = 0;
  size_t color_ = 0;
};

class StackPool {
 public:
  explicit StackPool(size_t stack_bytes) : stack_bytes_(stack_bytes) {}
  GuardedStack* acquire();
  void release(GuardedStack* stack);
  size_t stack_bytes() const { return stack_bytes_; }
  // The stack whose guard page holds `address`, or nullptr.
  const GuardedStack* guard_owner(const void* address) const;

 private:
  size_t stack_bytes_;
  std::vector<GuardedStack*> free_;
  std::vector<GuardedStack*> all_;  // owned; a pool lives as long as its worker
 public:
  ~StackPool();
};

size_t default_stack_bytes();  // METALSIM_STACK_SIZE (bytes, k/m suffix) or 256 KiB

}  // namespace metalsim::fiber
