#include "simt/engine/threadgroup_arena.h"

#include "simt/checks/access_shadow.h"
#include "simt/checks/uninit_trace.h"
#include "simt/fiber/guarded_stack.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace metalsim::engine {
namespace {

using fiber::page_size;
using fiber::round_up;
constexpr size_t kRegionAlign = 16;

std::atomic<int32_t> next_slot{0};

size_t slab_bytes(size_t capacity) {
  return round_up(round_up(capacity, kRegionAlign), page_size()) + page_size();
}

// Names `address` by the first named slab `holds(slab, address)` finds it in: the slab's name and
// the offset from the slab's data.
template <class Slabs, class Holds>
bool name_slab(const Slabs& slabs, const void* address, Holds holds, std::string& region_name,
               uint64_t& offset) {
  auto* a = static_cast<const char*>(address);
  for (const auto& s : slabs) {
    if (!s.name.empty() && holds(s, a)) {
      region_name = s.name;
      offset = uint64_t(a - s.data);
      return true;
    }
  }
  return false;
}

}  // namespace

ThreadgroupArena::~ThreadgroupArena() { unmap(); }

void ThreadgroupArena::unmap() {
  if (mapping_ != nullptr) {
    checks::shadow::mark_valid(mapping_, mapping_size_);  // the addresses may be anyone's next
    munmap(mapping_, mapping_size_);
  }
  mapping_ = nullptr;
  slabs_.clear();
  marked_.clear();
  marked_before_.clear();
}

ThreadgroupArena::Slab& ThreadgroupArena::place(char*& cursor, size_t capacity, std::string name) {
  Slab s;
  s.begin = cursor;
  s.guard = cursor + slab_bytes(capacity) - page_size();
  s.capacity = round_up(capacity, kRegionAlign);
  s.data = s.guard - s.capacity;
  s.valid = s.capacity;
  s.name = std::move(name);
  mprotect(s.guard, page_size(), PROT_NONE);
  cursor += slab_bytes(capacity);
  slabs_.push_back(std::move(s));
  return slabs_.back();
}

void ThreadgroupArena::configure(const uint32_t (&lengths)[abi::kMaxThreadgroupBindings],
                                 uint32_t static_capacity) {
  if (mapping_ != nullptr && std::memcmp(lengths, lengths_, sizeof lengths_) == 0 &&
      static_capacity == static_capacity_)
    return;
  unmap();
  std::memcpy(lengths_, lengths, sizeof lengths_);
  static_capacity_ = static_capacity;
  // One guard page more: the region of every argument bound with length 0.
  size_t total = kGuardedVariableSlabs * slab_bytes(static_capacity) + slab_bytes(0);
  for (uint32_t len : lengths_)
    if (len > 0) total += slab_bytes(len);
  mapping_size_ = total;
  mapping_ = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  char* cursor = static_cast<char*>(mapping_);
  // The access shadow allows the regions' bytes and, once placed, the variables': not the rest.
  checks::shadow::mark(mapping_, mapping_size_, checks::shadow::kUnused);
  // Metal allows length 0 for a threadgroup argument the kernel never touches (ggml binds its
  // unused ones so). Such an argument points at a guard page, not at null, so that a kernel
  // that does touch it is reported as bounds.threadgroup with the region's name, in every
  // variant, instead of as a fault at an address near 0.
  char* const zero_length = place(cursor, 0, "threadgroup memory bound with length 0").data;
  for (uint32_t i = 0; i < abi::kMaxThreadgroupBindings; ++i) {
    regions_[i] = zero_length;
    if (lengths_[i] == 0) continue;
    const Slab& s = place(cursor, lengths_[i], "threadgroup(" + std::to_string(i) + ")");
    regions_[i] = s.data;
    checks::shadow::mark_valid(s.data, s.capacity);
  }
  first_variable_slab_ = slabs_.size();
  for (uint32_t k = 0; k < kGuardedVariableSlabs; ++k) place(cursor, static_capacity, "");
}

void ThreadgroupArena::mark_variable(char* data, size_t bytes) {
  const Marked m{data, bytes};
  marked_.push_back(m);
  if (std::find(marked_before_.begin(), marked_before_.end(), m) == marked_before_.end())
    checks::shadow::mark_valid(data, bytes);
}

// Variables placed two threadgroups ago where the last threadgroup placed none are no longer
// allowed (a kernel with other variables ran); the last threadgroup's stay, unless stale marks
// overlapped them.
void ThreadgroupArena::unmark_stale_variables() {
  bool stale = false;
  for (const Marked& m : marked_before_) {
    if (std::find(marked_.begin(), marked_.end(), m) != marked_.end()) continue;
    checks::shadow::mark(m.data, m.bytes, checks::shadow::kUnused);
    stale = true;
  }
  if (stale)
    for (const Marked& m : marked_) checks::shadow::mark_valid(m.data, m.bytes);
  marked_before_.swap(marked_);
  marked_.clear();
}

void ThreadgroupArena::begin_threadgroup(bool poison, uint8_t poison_byte) {
#if defined(METALSIM_RACECHECK)
  // Fresh pages per threadgroup: ThreadSanitizer must not see two threadgroups' accesses to
  // one worker's arena as a race.
  uint32_t lengths[abi::kMaxThreadgroupBindings];
  std::memcpy(lengths, lengths_, sizeof lengths);
  unmap();
  configure(lengths, static_capacity_);
#endif
  for (int32_t slot : used_slots_) static_slots_[slot] = nullptr;
  used_slots_.clear();
  unmark_stale_variables();
  static_used_ = 0;
  variables_placed_ = 0;
  poison_ = poison;
  poison_byte_ = poison_byte;
  if (!poison) return;
  for (size_t i = 0; i < first_variable_slab_; ++i)
    std::memset(slabs_[i].data, poison_byte, slabs_[i].capacity);
}

void ThreadgroupArena::begin_trace(checks::UninitTrace& trace) {
  // Everything poisoned first, so that only the kernel's own stores change bytes.
  char* base = static_cast<char*>(mapping_);
  std::vector<uint8_t> guard_pages(mapping_size_ / page_size(), 0);
  for (const Slab& s : slabs_) {
    std::memset(s.guard - s.capacity, poison_byte_, s.capacity);
    guard_pages[size_t(s.guard - base) / page_size()] = 1;
  }
  trace.begin(base, mapping_size_, std::move(guard_pages));
}

// The first kGuardedVariableSlabs variables of a threadgroup each end at a guard page of their
// own; later ones are stacked below the last, sharing its guard.
void* ThreadgroupArena::allocate_static(ThreadgroupVariableSite& site) {
  int32_t slot = site.slot.load(std::memory_order_acquire);
  if (slot < 0) {
    int32_t fresh = next_slot.fetch_add(1);
    if (site.slot.compare_exchange_strong(slot, fresh)) slot = fresh;
  }
  if (size_t(slot) >= static_slots_.size()) static_slots_.resize(slot + 1, nullptr);
  if (static_slots_[slot] != nullptr) return static_slots_[slot];

  const size_t align = site.align > kRegionAlign ? site.align : kRegionAlign;
  const size_t bytes = round_up(site.size, align);
  if (static_used_ + bytes > static_capacity_) return nullptr;
  char* p = nullptr;
  const uint32_t k =
      variables_placed_ < kGuardedVariableSlabs ? variables_placed_ : kGuardedVariableSlabs - 1;
  Slab& slab = slabs_[first_variable_slab_ + k];
  if (variables_placed_ < kGuardedVariableSlabs) {
    p = slab.guard - bytes;
    shared_slab_cursor_ = p;
  } else {
    p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(shared_slab_cursor_) - bytes) &
                                ~(align - 1));
    shared_slab_cursor_ = p;
  }
  slab.data = p;
  slab.valid = site.size;
  slab.name = std::string("threadgroup variable '") + site.name + "'";
  mark_variable(p, site.size);
  ++variables_placed_;
  static_used_ += uint32_t(bytes);
  if (poison_) std::memset(p, poison_byte_, bytes);
  static_slots_[slot] = p;
  used_slots_.push_back(slot);
  return p;
}

bool ThreadgroupArena::describe_data(const void* address, std::string& region_name,
                                     uint64_t& offset) const {
  auto in_data = [](const Slab& s, const char* a) { return a >= s.data && a < s.guard; };
  return name_slab(slabs_, address, in_data, region_name, offset);
}

bool ThreadgroupArena::describe_guard(const void* address, std::string& region_name,
                                      uint64_t& offset) const {
  auto in_guard = [](const Slab& s, const char* a) {
    return a >= s.guard && a < s.guard + page_size();
  };
  return name_slab(slabs_, address, in_guard, region_name, offset);
}

bool ThreadgroupArena::describe_outside(const void* address, std::string& region_name,
                                        int64_t& offset) const {
  auto* a = static_cast<const char*>(address);
  for (const Slab& s : slabs_) {
    if (s.name.empty() || a < s.begin || a >= s.guard + page_size()) continue;
    if (a >= s.data && a < s.data + s.valid) continue;  // its own bytes
    region_name = s.name;
    offset = int64_t(a - s.data);
    return true;
  }
  return false;
}

std::string ThreadgroupArena::describe_overflow(const ThreadgroupVariableSite& site,
                                                uint32_t limit) const {
  return "threadgroup variable '" + std::string(site.name) + "' (" + std::to_string(site.size) +
         " bytes) does not fit: " + std::to_string(static_used_) +
         " bytes of kernel-scope threadgroup memory are in use and the limit is " +
         std::to_string(limit) + " bytes in all";
}

}  // namespace metalsim::engine
