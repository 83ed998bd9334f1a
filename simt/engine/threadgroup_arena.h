#pragma once
// The threadgroup memory of one worker, reused by every threadgroup it runs. Each
// [[threadgroup(N)]] region ends flush against a PROT_NONE guard page, so running off its end
// faults (bounds.threadgroup); kernel-scope variables are carved from a region of their own,
// ending at a guard too. Checked runs fill everything with a poison pattern per threadgroup.
#include <cstdint>
#include <string>
#include <vector>

#include "simt/engine/kernel.h"
#include "simt/engine/threadgroup_memory.h"

namespace metalsim::engine {

inline constexpr uint8_t kThreadgroupPoisonByte = 0xA5;  // 0xA5A5A5A5: an unlikely float/int

class ThreadgroupArena {
 public:
  ThreadgroupArena() = default;
  ~ThreadgroupArena();
  ThreadgroupArena(const ThreadgroupArena&) = delete;
  ThreadgroupArena& operator=(const ThreadgroupArena&) = delete;

  // Lays out the regions for a dispatch; keeps the mapping when the lengths are unchanged.
  void configure(const uint32_t (&lengths)[kMaxThreadgroupBindings], uint32_t static_capacity);
  // Starts a threadgroup: forgets kernel-scope variables; poisons when asked.
  void begin_threadgroup(bool poison);
  void* region(uint32_t index) const { return regions_[index]; }
  // Kernel-scope variable storage; nullptr when the capacity is exhausted.
  void* allocate_static(ThreadgroupVariableSite& site);
  uint32_t static_bytes_used() const { return static_used_; }

  // For fault reports: which region's guard holds `address`, as "threadgroup(2)".
  bool describe_guard(const void* address, std::string& region_name, uint64_t& offset) const;

 private:
  void unmap();

  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  uint32_t lengths_[kMaxThreadgroupBindings] = {};
  void* regions_[kMaxThreadgroupBindings] = {};
  char* static_base_ = nullptr;
  uint32_t static_capacity_ = 0;
  uint32_t static_used_ = 0;
  std::vector<char*> guards_;  // one per region, in layout order
  std::vector<std::string> guard_names_;
  std::vector<char*> guard_origins_;
  std::vector<void*> static_slots_;  // slot -> address, this threadgroup
  std::vector<int32_t> used_slots_;
};

}  // namespace metalsim::engine
