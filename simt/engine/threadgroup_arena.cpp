#include "simt/engine/threadgroup_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace metalsim::engine {
namespace {

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
constexpr size_t kRegionAlign = 16;

std::atomic<int32_t> next_slot{0};

}  // namespace

ThreadgroupArena::~ThreadgroupArena() { unmap(); }

void ThreadgroupArena::unmap() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  guards_.clear();
  guard_names_.clear();
  guard_origins_.clear();
}

void ThreadgroupArena::configure(const uint32_t (&lengths)[kMaxThreadgroupBindings],
                                 uint32_t static_capacity) {
  if (mapping_ != nullptr && std::memcmp(lengths, lengths_, sizeof lengths_) == 0 &&
      static_capacity == static_capacity_)
    return;
  unmap();
  std::memcpy(lengths_, lengths, sizeof lengths_);
  static_capacity_ = static_capacity;
  const size_t page = page_size();
  // Each region (the used [[threadgroup(N)]] indices, then the static one) takes whole pages
  // of data followed by one guard page; data sits flush against its guard.
  auto slab = [&](size_t bytes) { return round_up(round_up(bytes, kRegionAlign), page) + page; };
  size_t total = slab(static_capacity);
  for (uint32_t len : lengths_)
    if (len > 0) total += slab(len);
  mapping_size_ = total;
  mapping_ = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  char* cursor = static_cast<char*>(mapping_);
  auto place = [&](size_t bytes, const std::string& name) {
    size_t data = round_up(bytes, kRegionAlign);
    char* guard = cursor + slab(bytes) - page;
    mprotect(guard, page, PROT_NONE);
    guards_.push_back(guard);
    guard_names_.push_back(name);
    guard_origins_.push_back(guard - data);
    cursor += slab(bytes);
    return guard - data;
  };
  for (uint32_t i = 0; i < kMaxThreadgroupBindings; ++i)
    regions_[i] = lengths_[i] > 0 ? place(lengths_[i], "threadgroup(" + std::to_string(i) + ")")
                                  : nullptr;
  static_base_ = place(static_capacity, "kernel-scope threadgroup variables");
}

void ThreadgroupArena::begin_threadgroup(bool poison) {
  for (int32_t slot : used_slots_) static_slots_[slot] = nullptr;
  used_slots_.clear();
  static_used_ = 0;
  if (!poison) return;
  for (size_t i = 0; i < guards_.size(); ++i)
    std::memset(guard_origins_[i], kThreadgroupPoisonByte, size_t(guards_[i] - guard_origins_[i]));
}

void* ThreadgroupArena::allocate_static(ThreadgroupVariableSite& site) {
  int32_t slot = site.slot.load(std::memory_order_acquire);
  if (slot < 0) {
    int32_t fresh = next_slot.fetch_add(1);
    if (site.slot.compare_exchange_strong(slot, fresh)) slot = fresh;
  }
  if (size_t(slot) >= static_slots_.size()) static_slots_.resize(slot + 1, nullptr);
  if (static_slots_[slot] != nullptr) return static_slots_[slot];
  uint32_t offset = uint32_t(round_up(static_used_, site.align));
  if (offset + site.size > static_capacity_) return nullptr;
  static_used_ = offset + site.size;
  static_slots_[slot] = static_base_ + offset;
  used_slots_.push_back(slot);
  return static_slots_[slot];
}

bool ThreadgroupArena::describe_guard(const void* address, std::string& region_name,
                                      uint64_t& offset) const {
  auto* a = static_cast<const char*>(address);
  for (size_t i = 0; i < guards_.size(); ++i) {
    if (a >= guards_[i] && a < guards_[i] + page_size()) {
      region_name = guard_names_[i];
      offset = uint64_t(a - guard_origins_[i]);
      return true;
    }
  }
  return false;
}

}  // namespace metalsim::engine
