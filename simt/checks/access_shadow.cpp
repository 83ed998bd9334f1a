#include "simt/checks/access_shadow.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace {
// Before the shadow is reserved (or where it cannot be), instrumented kernels read this zero
// word: mask 0 sends every address to byte 0. Two granules' bytes, for the fast path's 2-byte
// load.
alignas(64) uint8_t zero_shadow[64] = {};
}  // namespace

extern "C" {
uint8_t* __metalsim_access_shadow = zero_shadow;
uint64_t __metalsim_access_shadow_mask = 0;
}

namespace metalsim::checks::shadow {
namespace {

constexpr unsigned kAddressBits = 47;  // x86-64 and AArch64 Linux user space
constexpr uint64_t kGranules = uint64_t(1) << (kAddressBits - kGranuleShift);

std::string reason;

void reserve() {
  // One extra page: the fast path loads two bytes at the last granule's index.
  const size_t bytes = kGranules + 4096;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    reason = "the 8 TiB shadow of byte-precise bounds could not be reserved (" +
             std::string(std::strerror(errno)) +
             "): bounds are the guard pages' (a buffer's odd tail and bytes before a bound "
             "offset are not checked)";
    return;
  }
  __metalsim_access_shadow = static_cast<uint8_t*>(p);
  __metalsim_access_shadow_mask = kGranules - 1;
}

uint8_t* granule_byte(const void* address) {
  const uint64_t index = reinterpret_cast<uintptr_t>(address) >> kGranuleShift;
  return __metalsim_access_shadow + (index & __metalsim_access_shadow_mask);
}

uintptr_t granule_of(const void* address) {
  return reinterpret_cast<uintptr_t>(address) >> kGranuleShift;
}

// Which bytes of the granule whose shadow is `s` may be accessed: [from, to).
void allowed(uint8_t s, unsigned& from, unsigned& to) {
  from = 0;
  to = unsigned(kGranule);
  if (s == 0) return;
  if (s < kGranule) {
    to = s;
  } else if ((s & ~uint8_t(kGranule - 1)) == kValidFrom) {
    from = s & (kGranule - 1);
  } else {
    to = 0;
  }
}

}  // namespace

bool active() {
  static std::once_flag once;
  std::call_once(once, reserve);
  return __metalsim_access_shadow_mask != 0;
}

std::string unavailable_reason() { return active() ? std::string() : reason; }

void mark(const void* begin, size_t bytes, uint8_t value) {
  if (!active() || bytes == 0) return;
  const uintptr_t first = granule_of(begin);
  const uintptr_t last = granule_of(static_cast<const char*>(begin) + bytes - 1);
  std::memset(granule_byte(begin), value, last - first + 1);
}

void mark_valid(const void* begin, size_t bytes) {
  if (!active() || bytes == 0) return;
  const size_t whole = bytes / kGranule * kGranule;
  if (whole > 0) mark(begin, whole, 0);
  if (bytes > whole)
    *granule_byte(static_cast<const char*>(begin) + whole) = uint8_t(bytes - whole);
}

void mark_valid_from(const void* address) {
  if (!active()) return;
  const unsigned from = unsigned(reinterpret_cast<uintptr_t>(address) & (kGranule - 1));
  *granule_byte(address) = from == 0 ? uint8_t(0) : uint8_t(kValidFrom | from);
}

uint8_t granule_value(const void* address) { return active() ? *granule_byte(address) : 0; }

void set_granule_value(const void* address, uint8_t value) {
  if (active()) *granule_byte(address) = value;
}

bool plain(const void* address, size_t bytes) {
  if (__metalsim_access_shadow_mask == 0 || bytes == 0) return true;
  const uint8_t* s = granule_byte(address);
  const uint8_t* const end =
      s + (granule_of(static_cast<const char*>(address) + bytes - 1) - granule_of(address) + 1);
  for (; s + 8 <= end; s += 8) {
    uint64_t word;
    std::memcpy(&word, s, 8);
    if (word != 0) return false;
  }
  for (; s < end; ++s)
    if (*s != 0) return false;
  return true;
}

const char* first_inaccessible(const void* address, size_t bytes) {
  const char* p = static_cast<const char*>(address);
  const char* const end = p + bytes;
  if (!active()) return end;
  while (p < end) {
    const unsigned offset = unsigned(reinterpret_cast<uintptr_t>(p) & (kGranule - 1));
    unsigned from = 0, to = 0;
    allowed(*granule_byte(p), from, to);
    if (offset < from || offset >= to) return p;
    // The rest of this granule that the access covers, up to what is allowed.
    const size_t in_granule = std::min<size_t>(kGranule - offset, size_t(end - p));
    if (offset + in_granule > to) return p + (to - offset);
    p += in_granule;
  }
  return end;
}

bool allows(const void* address, size_t bytes) {
  return plain(address, bytes) ||
         first_inaccessible(address, bytes) == static_cast<const char*>(address) + bytes;
}

}  // namespace metalsim::checks::shadow
