#pragma once
// The threadgroup memory of one worker, reused by every threadgroup it runs. Every
// [[threadgroup(N)]] region and every kernel-scope `threadgroup` variable ends flush against a
// PROT_NONE guard page, so running off its end faults (bounds.threadgroup) instead of reaching a
// neighbour. Checked runs (init) fill all of it with a poison pattern per threadgroup.
#include <cstdint>
#include <string>
#include <vector>

#include "simt/abi/kernel.h"
#include "simt/engine/threadgroup_memory.h"

namespace metalsim::checks {
class UninitTrace;  // uninit_trace.h
}

namespace metalsim::engine {

inline constexpr uint8_t kThreadgroupPoisonByte = 0xA5;  // 0xA5A5A5A5: an unlikely float/int
// Kernel-scope variables with a guard page each; a kernel with more shares the last slab.
inline constexpr uint32_t kGuardedVariableSlabs = 16;

class ThreadgroupArena {
 public:
  ThreadgroupArena() = default;
  ~ThreadgroupArena();
  ThreadgroupArena(const ThreadgroupArena&) = delete;
  ThreadgroupArena& operator=(const ThreadgroupArena&) = delete;

  // Lays out the regions for a dispatch; keeps the mapping when the sizes are unchanged.
  // `static_capacity`: the bytes kernel-scope variables may use in all.
  void configure(const uint32_t (&lengths)[abi::kMaxThreadgroupBindings], uint32_t static_capacity);
  // Starts a threadgroup: forgets kernel-scope variables; fills with `poison_byte` when asked.
  void begin_threadgroup(bool poison, uint8_t poison_byte = kThreadgroupPoisonByte);
  // Initcheck's locating pass: poison everything, then hand the pages to `trace`.
  void begin_trace(checks::UninitTrace& trace);
  void* region(uint32_t index) const { return regions_[index]; }
  // Kernel-scope variable storage; nullptr when the capacity is exhausted.
  void* allocate_static(ThreadgroupVariableSite& site);
  uint32_t static_bytes_used() const { return static_used_; }
  // Why allocate_static(site) returned nullptr, in words, for limit.threadgroup_memory (both
  // execution modes file it). `limit`: the dispatch's threadgroup memory limit in all.
  std::string describe_overflow(const ThreadgroupVariableSite& site, uint32_t limit) const;

  // Which region holds `address` (its data, not its guard), and at what offset.
  bool describe_data(const void* address, std::string& region_name, uint64_t& offset) const;
  // For fault reports: which region's guard holds `address`, and the offset from its start.
  bool describe_guard(const void* address, std::string& region_name, uint64_t& offset) const;
  // For access checks (access_shadow.h): which region's unused bytes (around it, or the tail of
  // its last granule) hold `address`, and the offset from its start (negative: before it).
  bool describe_outside(const void* address, std::string& region_name, int64_t& offset) const;
  // The whole mapping: the shadow racecheck keeps cells for it (race_shadow.h).
  const char* mapping_begin() const { return static_cast<const char*>(mapping_); }
  const char* mapping_end() const { return mapping_begin() + mapping_size_; }

 private:
  // A piece of threadgroup memory whose data ends at a guard page.
  struct Slab {
    char* begin = nullptr;  // its first page
    char* guard = nullptr;
    char* data = nullptr;  // start of the data in use (flush against the guard)
    size_t capacity = 0;   // bytes available below the guard
    size_t valid = 0;      // bytes of the region or variable from `data` on
    std::string name;
  };
  // A kernel-scope variable's bytes the access shadow allows.
  struct Marked {
    char* data;
    size_t bytes;
    friend bool operator==(const Marked&, const Marked&) = default;
  };
  void unmap();
  Slab& place(char*& cursor, size_t capacity, std::string name);
  void mark_variable(char* data, size_t bytes);
  void unmark_stale_variables();

  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  uint32_t lengths_[abi::kMaxThreadgroupBindings] = {};
  void* regions_[abi::kMaxThreadgroupBindings] = {};
  uint32_t static_capacity_ = 0;
  uint32_t static_used_ = 0;
  bool poison_ = false;
  uint8_t poison_byte_ = kThreadgroupPoisonByte;
  std::vector<Slab> slabs_;  // dynamic regions first, then the variable slabs
  size_t first_variable_slab_ = 0;
  uint32_t variables_placed_ = 0;  // this threadgroup
  char* shared_slab_cursor_ = nullptr;
  std::vector<void*> static_slots_;  // slot -> address, this threadgroup
  std::vector<int32_t> used_slots_;
  // Variables allowed by the access shadow, this threadgroup and the one before (where the
  // same kernel's variables land at the same addresses: they are not marked again).
  std::vector<Marked> marked_, marked_before_;
};

}  // namespace metalsim::engine
