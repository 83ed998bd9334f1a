#include "simt/checks/access_check.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "simt/checks/access_shadow.h"
#include "simt/checks/check_notice.h"
#include "simt/checks/race_annotations.h"
#include "simt/checks/race_shadow.h"
#include "simt/checks/running_threadgroup.h"
#include "simt/fault/fault.h"

extern "C" {
uint32_t __metalsim_access_every = 0;
}

namespace metalsim::checks {
namespace {

thread_local const abi::DispatchRequest* tls_active = nullptr;

// [address, address + bytes) lies inside one binding of the dispatch: valid through it, whatever
// the shadow says of the bytes (a buffer bound twice: before one binding, inside another).
bool inside_a_binding(const abi::DispatchRequest& request, const char* address, size_t bytes) {
  return std::any_of(request.memory.begin(), request.memory.end(), [&](const abi::MemoryRange& m) {
    return address >= m.origin && address + bytes <= m.end;
  });
}

// `return_address`: into the instrumented frame, whose callers the report may need.
void check_bounds(const abi::DispatchRequest& request, const char* address, size_t bytes,
                  bool write, const void* pc, const void* return_address) {
  const char* bad = shadow::first_inaccessible(address, bytes);
  if (bad == address + bytes || inside_a_binding(request, address, bytes)) return;
  // A granule that a no-copy buffer shares with memory not its own may be marked unused whole
  // (host/src/buffer.cpp): the first byte refused may still be a binding's. The report names the
  // first that is none's.
  for (const char* p = bad; p < address + bytes; ++p)
    if (!inside_a_binding(request, p, 1)) {
      bad = p;
      break;
    }
  fault::FaultRecord fault;
  fault.address = bad;
  fault.pc = pc;
  fault::capture_callers(return_address, fault.callers);
  fault.write = write;
  fault.detected = true;
  fault::FaultTrap::raise(fault);  // does not return while a trap is armed
}

void check_race(const char* address, size_t bytes, uint32_t flags, const void* pc) {
  if ((flags & access::kAtomic) != 0) return;  // Metal's atomics are relaxed: no race, no order
  RunningThreadgroup* running = RunningThreadgroup::current();
  if (running == nullptr || running->race() == nullptr) return;
  race::WorkerShadow& shadow = *running->race();
  const int32_t acting = shadow.clock().acting_lane;
  const uint32_t lane = acting >= 0 ? uint32_t(acting) : running->current_lane();
  shadow.on_access(*running, lane, address, bytes, (flags & access::kWrite) != 0, pc);
}

void check(const void* address, uint64_t bytes, uint32_t flags, const void* return_address) {
  const abi::DispatchRequest* request = tls_active;
  if (request == nullptr || bytes == 0) return;
  // The call's return address, less one: inside the call instruction, whose line is the
  // access's (the pass gives the call the access's debug location).
  const void* pc = static_cast<const char*>(return_address) - 1;
  const char* p = static_cast<const char*>(address);
  if (request->options.checks.mem)
    check_bounds(*request, p, bytes, (flags & access::kWrite) != 0, pc, return_address);
  if (__metalsim_access_every != 0) check_race(p, bytes, flags, pc);
}

}  // namespace

ActiveDispatch::ActiveDispatch(const abi::DispatchRequest& request) { tls_active = &request; }
ActiveDispatch::~ActiveDispatch() { tls_active = nullptr; }
const abi::DispatchRequest* ActiveDispatch::current() { return tls_active; }

bool kernels_built_with_access_checks() {
#if defined(METALSIM_ACCESS_CHECKS)
  return !race::kEnabled;
#else
  return false;
#endif
}

// ------------------------------ marks of the bound offsets

namespace {

// Byte-precise bounds asked for and not possible: said once (METALSIM_CHECKS never skips a check
// in silence).
void say_why_bounds_are_coarse(const abi::DispatchRequest& request) {
  if (!request.options.checks.mem) return;
  if (race::kEnabled) {
    notice_once(
        "bounds are the guard pages' under ThreadSanitizer (a buffer's odd tail and bytes "
        "before a bound offset are not checked): the release and asan builds check every "
        "byte");
  } else if (!kernels_built_with_access_checks()) {  // kernels built without the pass
    notice_once(
        "bounds are the guard pages' only: kernels are built without the access-check pass (it "
        "needs LLVM 19 and METALSIM_KERNEL_COMPILER=clang), so a buffer's odd tail and bytes "
        "before a bound offset are not checked");
  } else if (!shadow::active()) {
    notice_once(shadow::unavailable_reason());
  }
}

}  // namespace

BindingMarks::BindingMarks(const abi::DispatchRequest& request) {
  say_why_bounds_are_coarse(request);
  // A buffer's bytes before a bound offset are the buffer's own: Metal lets a kernel reach them
  // (MLX's negative strides index backwards from an array's offset), so only a strict run
  // reports them.
  if (!shadow::active() || !request.options.strict) return;
  for (const abi::MemoryRange& m : request.memory) {
    if (m.contents == nullptr) continue;
    auto same = std::find_if(marked_.begin(), marked_.end(),
                             [&](const Marked& k) { return k.contents == m.contents; });
    if (same == marked_.end()) marked_.push_back({m.contents, m.origin, m.end, {}});
    else same->lowest = std::min(same->lowest, m.origin);
  }
  // In granules of the address space: a no-copy buffer's contents need not start on one.
  const auto granule = [](const char* p) {
    return reinterpret_cast<const char*>(uintptr_t(p) & ~uintptr_t(shadow::kGranule - 1));
  };
  for (Marked& k : marked_) {
    if (k.lowest == k.contents) continue;
    const char* first = granule(k.contents);
    const char* lowest = granule(k.lowest);
    for (const char* g = first; g <= lowest; g += shadow::kGranule)
      k.saved.push_back(shadow::granule_value(g));
    if (lowest > first) shadow::mark(first, size_t(lowest - first), shadow::kBeforeBinding);
    // The granule the lowest binding starts in, unless it is also the buffer's odd last one
    // (whose tail mark stays: bytes before the binding there go unchecked).
    if (lowest + shadow::kGranule <= k.end) shadow::mark_valid_from(k.lowest);
  }
}

BindingMarks::~BindingMarks() {
  for (const Marked& k : marked_) {
    const char* g =
        reinterpret_cast<const char*>(uintptr_t(k.contents) & ~uintptr_t(shadow::kGranule - 1));
    for (uint8_t value : k.saved) {
      shadow::set_granule_value(g, value);
      g += shadow::kGranule;
    }
  }
}

}  // namespace metalsim::checks

// ------------------------------ the calls instrumented kernels make

namespace metalsim::checks {

void private_out_of_bounds(const char* variable, uint64_t elements, int64_t index, uint32_t flags) {
  const abi::DispatchRequest* request = tls_active;
  if (request == nullptr || !request->options.checks.mem) return;
  const void* return_address = __builtin_return_address(0);
  fault::FaultRecord fault;
  fault.pc = static_cast<const char*>(return_address) - 1;  // the call, on the access's line
  fault.write = (flags & access::kWrite) != 0;
  fault.detected = true;
  fault.variable = variable;
  fault.elements = elements;
  fault.index = index;
  fault::capture_callers(return_address, fault.callers);
  fault::FaultTrap::raise(fault);  // does not return while a trap is armed
}

}  // namespace metalsim::checks

extern "C" void __metalsim_access(const void* address, uint64_t bytes, uint32_t flags) {
  metalsim::checks::check(address, bytes, flags, __builtin_return_address(0));
}

extern "C" void __metalsim_access_masked(const void* address, uint32_t element_bytes, uint64_t mask,
                                         uint32_t flags) {
  const void* return_address = __builtin_return_address(0);
  for (uint32_t i = 0; i < 64 && mask != 0; ++i, mask >>= 1)
    if ((mask & 1) != 0)
      metalsim::checks::check(static_cast<const char*>(address) + uint64_t(i) * element_bytes,
                              element_bytes, flags, return_address);
}

// ------------------------------ hoisted range tests

namespace metalsim::checks {
namespace {

struct Stride {
  int64_t step;
  uint64_t last;  // the index of the last iteration (a loop's backedge-taken count)
};

constexpr uint64_t kUserEnd = uint64_t(1) << 47;  // as the shadow (access_shadow.cpp)
// Granules one test may read before it gives up (the accesses are then tested one by one).
constexpr uint64_t kScanLimit = uint64_t(1) << 24;

// Words of shadow a scan of `bytes` bytes reads, and what a block costs besides.
constexpr uint64_t scan_cost(uint64_t bytes) { return bytes / (shadow::kGranule * 8) + 1; }
constexpr uint64_t kBlockCost = 4;

// How far start + sum of step_i * k_i, 0 <= k_i <= last_i, reaches below and above start
// (`below`, `above` >= 0); false when that does not fit in 64 bits.
bool reach(const std::array<Stride, 3>& strides, uint64_t& below, uint64_t& above) {
  below = above = 0;
  for (const Stride& s : strides) {
    int64_t span = 0;
    if (s.last > uint64_t(INT64_MAX) || __builtin_mul_overflow(s.step, int64_t(s.last), &span) ||
        span == INT64_MIN)
      return false;
    if (__builtin_add_overflow(span < 0 ? below : above, uint64_t(std::llabs(span)),
                               span < 0 ? &below : &above))
      return false;
  }
  return true;
}

// Whether the shadow allows every access of `bytes` bytes at start + sum of ki * stepi,
// 0 <= ki <= lasti (granules whose shadow is 0, and the allowed bytes of a partial one: a loop
// that runs to the end of an odd-sized buffer). The smallest strides make one contiguous block,
// scanned whole, while that costs less than walking them block by block (a stride of 512 bytes over
// 16 iterations: one scan of 512 shadow bytes); the others are walked, a block per step (a column
// of a matrix: one granule per row).
bool strided_allowed(uintptr_t start, uint64_t bytes, std::array<Stride, 3> strides) {
  for (Stride& s : strides)
    if (s.step == 0 || s.last == 0) s = {0, 0};
  uint64_t below = 0, above = 0;  // how far the accesses reach below start and above its end
  if (!reach(strides, below, above)) return false;
  uint64_t end = 0;
  if (start < below || __builtin_add_overflow(start, bytes, &end) ||
      __builtin_add_overflow(end, above, &end) || end > kUserEnd)
    return false;
  // Every address below lies in [start - below, end): none wraps.
  std::sort(strides.begin(), strides.end(), [](const Stride& a, const Stride& b) {
    return std::llabs(a.step) < std::llabs(b.step);
  });
  uint64_t extent = bytes, first = start;  // the contiguous block at the walked strides' origin
  size_t walked = 0;
  for (; walked < strides.size(); ++walked) {
    const Stride& s = strides[walked];
    const uint64_t step = uint64_t(std::llabs(s.step));
    const uint64_t merged = extent + step * s.last;
    uint64_t walk = 0;
    if (step > extent + shadow::kGranule &&
        !__builtin_mul_overflow(s.last + 1, scan_cost(extent) + kBlockCost, &walk) &&
        scan_cost(merged) > walk)
      break;
    extent = merged;
    if (s.step < 0) first -= step * s.last;
  }
  uint64_t blocks = 1;
  for (size_t i = walked; i < strides.size(); ++i)
    if (__builtin_mul_overflow(blocks, strides[i].last + 1, &blocks)) return false;
  const uint64_t granules = extent / shadow::kGranule + 2;
  if (blocks > kScanLimit / granules) return false;
  // An odometer over the walked strides (at most 3).
  std::array<uint64_t, 3> k{};
  for (;;) {
    uint64_t at = first;
    for (size_t i = walked; i < strides.size(); ++i) at += uint64_t(strides[i].step) * k[i];
    if (!shadow::allows(reinterpret_cast<const void*>(at), extent)) return false;
    size_t i = walked;
    while (i < strides.size() && k[i] == strides[i].last) k[i++] = 0;
    if (i == strides.size()) return true;
    ++k[i];
  }
}

}  // namespace
}  // namespace metalsim::checks

extern "C" uint32_t __metalsim_access_range(const void* start, uint64_t bytes, int64_t step0,
                                            uint64_t last0, int64_t step1, uint64_t last1,
                                            int64_t step2, uint64_t last2) {
  if (__metalsim_access_every != 0) return 0;
  return metalsim::checks::strided_allowed(reinterpret_cast<uintptr_t>(start), bytes,
                                           {{{step0, last0}, {step1, last1}, {step2, last2}}})
             ? 1
             : 0;
}

namespace metalsim::checks {
namespace {

// The least and greatest of the T at first + k * stride, 0 <= k <= last, read unsigned and
// signed. A T narrower than 64 bits is the same value in either reading modulo 2^bits, and the
// interval that spans less is the tighter bound (a slot holding -32, 0 - k0 in a uint, is
// 4294967264 unsigned and -32 signed); a 64-bit one is read signed. Plain min and max over T, so
// that the loop over consecutive slots (stride == sizeof(T), a frame slot's lanes) vectorizes:
// decode attention's steps read four slots of 128 lanes at each entry of a bounded lane loop.
template <class T>
MetalsimValueBounds value_bounds(const char* first, int64_t stride, uint64_t last) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  U ulow, uhigh;
  S slow, shigh;
  std::memcpy(&ulow, first, sizeof ulow);
  uhigh = ulow;
  slow = shigh = S(ulow);
  // `step` a constant where the slots are consecutive, so that the loop vectorizes.
  auto scan = [&](auto step) {
    for (uint64_t k = 1; k <= last; ++k) {
      U v;
      std::memcpy(&v, first + int64_t(k) * int64_t(step), sizeof v);
      ulow = std::min(ulow, v);
      uhigh = std::max(uhigh, v);
      slow = std::min(slow, S(v));
      shigh = std::max(shigh, S(v));
    }
  };
  if (stride == int64_t(sizeof(T))) scan(std::integral_constant<int64_t, sizeof(T)>{});
  else scan(stride);
  const MetalsimValueBounds s{int64_t(slow), int64_t(shigh)};
  if constexpr (sizeof(T) == 8) return s;
  const MetalsimValueBounds u{int64_t(ulow), int64_t(uhigh)};
  return uint64_t(s.highest - s.lowest) <= uint64_t(u.highest - u.lowest) ? s : u;
}

}  // namespace
}  // namespace metalsim::checks

extern "C" MetalsimValueBounds __metalsim_value_bounds(const void* first, int64_t stride,
                                                       uint64_t last, uint32_t bytes) {
  const char* p = static_cast<const char*>(first);
  switch (bytes) {
    case 1: return metalsim::checks::value_bounds<uint8_t>(p, stride, last);
    case 2: return metalsim::checks::value_bounds<uint16_t>(p, stride, last);
    case 4: return metalsim::checks::value_bounds<uint32_t>(p, stride, last);
    default: return metalsim::checks::value_bounds<uint64_t>(p, stride, last);
  }
}

extern "C" uint32_t __metalsim_index_fits(int64_t start, int64_t step0, uint64_t last0,
                                          int64_t step1, uint64_t last1, int64_t step2,
                                          uint64_t last2, int64_t lowest, int64_t highest) {
  uint64_t below = 0, above = 0;
  if (!metalsim::checks::reach({{{step0, last0}, {step1, last1}, {step2, last2}}}, below, above))
    return 0;
  int64_t low = 0, high = 0;
  if (below > uint64_t(INT64_MAX) || above > uint64_t(INT64_MAX) ||
      __builtin_sub_overflow(start, int64_t(below), &low) ||
      __builtin_add_overflow(start, int64_t(above), &high))
    return 0;
  return low >= lowest && high <= highest ? 1 : 0;
}
