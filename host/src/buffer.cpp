#include "metalsim/Metal/MTLBuffer.hpp"

#include "metalsim/Metal/MTLHeap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <new>
#include <utility>

#include "simt/checks/access_shadow.h"

namespace MTL {
namespace {

NS::UInteger page_size() {
  static const NS::UInteger size = NS::UInteger(sysconf(_SC_PAGESIZE));
  return size;
}
NS::UInteger round_up(NS::UInteger n, NS::UInteger to) { return (n + to - 1) / to * to; }

namespace shadow = metalsim::checks::shadow;
constexpr uintptr_t kGranule = shadow::kGranule;

uintptr_t granule_down(const void* p) { return reinterpret_cast<uintptr_t>(p) & ~(kGranule - 1); }
uintptr_t granule_up(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) + kGranule - 1) & ~(kGranule - 1);
}

// The 16-byte granules that no-copy buffers share with memory not their own (the first and the
// last of an unaligned or odd-sized buffer): the shadow byte each had before the first such
// buffer marked it, restored when the last one goes. A granule two buffers share is marked
// unused whole: the access check then lets each binding's own bytes through (access_check.cpp).
class SharedGranules {
 public:
  // [first, end): the buffer's bytes in the granule at `granule`.
  void claim(uintptr_t granule, uintptr_t first, uintptr_t end) {
    if (!shadow::active()) return;
    auto* at = reinterpret_cast<const void*>(granule);
    std::lock_guard lock(mutex_);
    Claim& c = claims_[granule];
    if (c.count++ == 0) c.original = shadow::granule_value(at);
    uint8_t value = shadow::kUnused;
    if (c.count == 1 && first == granule) value = uint8_t(end - first);  // the first N bytes
    else if (c.count == 1 && end == granule + kGranule)
      value = uint8_t(shadow::kValidFrom | (first - granule));  // from N on
    shadow::set_granule_value(at, value);
  }
  void release(uintptr_t granule) {
    if (!shadow::active()) return;
    std::lock_guard lock(mutex_);
    auto it = claims_.find(granule);
    if (it == claims_.end()) return;
    if (--it->second.count == 0) {
      shadow::set_granule_value(reinterpret_cast<const void*>(granule), it->second.original);
      claims_.erase(it);
    }
  }

 private:
  struct Claim {
    uint32_t count = 0;
    uint8_t original = 0;
  };
  std::mutex mutex_;
  std::map<uintptr_t, Claim> claims_;
};

SharedGranules& shared_granules() {
  static SharedGranules* const kGranules = new SharedGranules;  // buffers may die after exit
  return *kGranules;
}

// The partial granules of [begin, begin + length): each with the bytes of it the buffer owns.
template <class F>
void for_each_partial_granule(const char* begin, NS::UInteger length, F&& f) {
  if (length == 0) return;
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin), e = b + length;
  const uintptr_t head = granule_down(begin), tail = granule_down(begin + length - 1);
  if (head == tail) {
    if (b != head || e != head + kGranule) f(head, b, e);
    return;
  }
  if (b != head) f(head, b, head + kGranule);
  if (e != tail + kGranule) f(tail, tail, e);
}

}  // namespace

// Layout: [guard page][data pages, contents flush at the end][guard page]. The contents start
// 16-byte aligned; the up to 15 bytes past an odd length and the bytes before the contents are
// marked in the access shadow (simt/checks/access_shadow.h), so that instrumented kernels find
// every byte outside the buffer, not only the guard pages.
namespace {
uint64_t next_identity() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}
}  // namespace

Buffer::Buffer(NS::UInteger length) : identity_(next_identity()), length_(length) {
  const NS::UInteger page = page_size();
  const NS::UInteger data = round_up(length == 0 ? 1 : length, 16);
  const NS::UInteger data_pages = round_up(data, page);
  mapping_size_ = data_pages + 2 * page;
  mapping_ =
      mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  char* base = static_cast<char*>(mapping_);
  mprotect(base, page, PROT_NONE);
  mprotect(base + page + data_pages, page, PROT_NONE);
  contents_ = base + page + data_pages - data;
  shadow::mark(base + page, data_pages - data, shadow::kUnused);
  shadow::mark_valid(contents_, length);
  if (length == 0) shadow::mark(contents_, data, shadow::kUnused);
}

// The caller's memory: nothing of its layout is metalsim's, so only the shadow of the bytes of
// its first and last granules that lie outside it changes (the rest of the memory's shadow is
// whatever it was: 0 for memory metalsim did not map).
Buffer::Buffer(void* pointer, NS::UInteger length, BufferDeallocator deallocator)
    : deallocator_(std::move(deallocator)),
      identity_(next_identity()),
      contents_(pointer),
      length_(length) {
  for_each_partial_granule(static_cast<const char*>(contents_), length_,
                           [](uintptr_t granule, uintptr_t first, uintptr_t end) {
                             shared_granules().claim(granule, first, end);
                           });
}

Buffer::~Buffer() {
  if (heap_ != nullptr) {
    heap_->release_bytes(heap_bytes_);
    heap_->release();
  }
  if (mapping_ == nullptr) {  // a no-copy buffer
    for_each_partial_granule(
        static_cast<const char*>(contents_), length_,
        [](uintptr_t granule, uintptr_t, uintptr_t) { shared_granules().release(granule); });
    if (deallocator_) deallocator_(contents_, length_);
    return;
  }
  // The addresses may be anyone's next.
  metalsim::checks::shadow::mark_valid(static_cast<char*>(mapping_) + page_size(),
                                       mapping_size_ - 2 * page_size());
  munmap(mapping_, mapping_size_);
}

void* Buffer::contents() const { return NS::is_nil(this) ? nullptr : contents_; }

NS::UInteger Buffer::length() const { return NS::is_nil(this) ? 0 : length_; }

const char* Buffer::guardBegin() const {
  if (mapping_ == nullptr)
    return reinterpret_cast<const char*>(granule_up(static_cast<const char*>(contents_) + length_));
  return static_cast<const char*>(mapping_) + mapping_size_ - page_size();
}
const char* Buffer::guardEnd() const {
  if (mapping_ == nullptr) return guardBegin();
  return static_cast<const char*>(mapping_) + mapping_size_;
}
const char* Buffer::extentBegin() const {
  if (mapping_ == nullptr) return reinterpret_cast<const char*>(granule_down(contents_));
  return static_cast<const char*>(mapping_);
}

NS::String* Buffer::label() const { return NS::String::string(label_.c_str()); }

NS::UInteger Buffer::allocatedSize() const { return round_up(length_, page_size()); }

}  // namespace MTL
