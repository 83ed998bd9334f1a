#pragma once
// What instrumented kernels call (simt/instrument, docs/checks.md): the slow path of every load
// and store whose shadow granule is not plain (access_shadow.h), and of every access while a
// racecheck dispatch runs. Byte-precise bounds (memcheck) and the shadow racecheck start here.
//
//   __metalsim_access(address, bytes, flags)     one access of `bytes` bytes
//   __metalsim_access_masked(address, element_bytes, mask, flags)
//                                                llvm.masked.load/store: element i when bit i
//   __metalsim_access_range(start, bytes, step0, last0, step1, last1, step2, last2)
//                                                a loop's accesses at once, before the loop: 1
//                                                when they may all skip their own test
//   __metalsim_index_fits(start, step0, last0, ..., lowest, highest)
//                                                ... when a 32-bit index in them never wraps
//
// A bounds violation stops the lane the way a guard-page fault does: the worker's armed
// FaultTrap jumps to its runner's recovery point, which files bounds.device or
// bounds.threadgroup (fault_report.cpp) naming the first byte outside.
#include <cstdint>

#include "simt/abi/dispatch_request.h"

extern "C" {
// Non-zero while a dispatch with the shadow racecheck on runs: every access calls the engine.
extern uint32_t __metalsim_access_every;
void __metalsim_access(const void* address, uint64_t bytes, uint32_t flags);
void __metalsim_access_masked(const void* address, uint32_t element_bytes, uint64_t mask,
                              uint32_t flags);
// The accesses of `bytes` bytes at start + k0 * step0 + k1 * step1 + k2 * step2 for every
// 0 <= ki <= lasti (a hoisted range test, docs/checks.md): 1 when no racecheck dispatch runs and
// the shadow of every granule they may touch is 0, so that no test of one of them would call the
// engine; else 0 (also when the span wraps or leaves user space, or would take too long to
// scan), and each access is tested as before.
uint32_t __metalsim_access_range(const void* start, uint64_t bytes, int64_t step0, uint64_t last0,
                                 int64_t step1, uint64_t last1, int64_t step2, uint64_t last2);
// 1 when start + k0 * step0 + k1 * step1 + k2 * step2 lies in [lowest, highest] for every
// 0 <= ki <= lasti: a 32-bit loop index the address extends to 64 bits never wraps, so the
// range test above, made of its 64-bit model, holds for it.
uint32_t __metalsim_index_fits(int64_t start, int64_t step0, uint64_t last0, int64_t step1,
                               uint64_t last1, int64_t step2, uint64_t last2, int64_t lowest,
                               int64_t highest);
// The least and greatest of the `bytes`-byte integers at first + k * stride for every
// 0 <= k <= last: the interval of a value each iteration of a lane loop loads from its own slot,
// for the lane loop's range test (simt/instrument/scev_interval.h). 8 bytes are read signed; 1, 2
// or 4 unsigned or signed, whichever interval spans less (the range test reads an n-bit value
// modulo 2^n). Reads nothing but those values.
struct MetalsimValueBounds {
  int64_t lowest;
  int64_t highest;
};
MetalsimValueBounds __metalsim_value_bounds(const void* first, int64_t stride, uint64_t last,
                                            uint32_t bytes);
}

namespace metalsim::checks {

// What the private-bounds pass (simt/instrument/private_bounds.h) calls before an access outside
// a thread's private array: element `index` of the `elements` of `variable`; `flags` as above.
// Stops the lane as a bounds violation does (bounds.private) while a dispatch with mem on runs.
void private_out_of_bounds(const char* variable, uint64_t elements, int64_t index, uint32_t flags);

namespace access {
// The bits of `flags` (simt/instrument/access_abi.h mirrors them).
inline constexpr uint32_t kWrite = 1;
inline constexpr uint32_t kAtomic = 2;
}  // namespace access

// The dispatch the calling worker runs, for the slow path: set around each threadgroup.
class ActiveDispatch {
 public:
  explicit ActiveDispatch(const abi::DispatchRequest& request);
  ~ActiveDispatch();
  ActiveDispatch(const ActiveDispatch&) = delete;
  ActiveDispatch& operator=(const ActiveDispatch&) = delete;
  static const abi::DispatchRequest* current();
};

// Whether this build compiles its kernels with the access-check pass (which also emits their
// fast variants, kernel_variants.h): not without LLVM 19 or with METALSIM_ACCESS_CHECKS off,
// nor under ThreadSanitizer (the pass leaves its kernels alone).
bool kernels_built_with_access_checks();

// Marks, for the length of a strict dispatch (ExecutionOptions::strict), the bytes of each bound
// buffer before its lowest bound offset (kBeforeBinding) and the first granule of a binding at an
// odd offset; without strict they are the buffer's, as on Metal (docs/checks.md). The destructor
// restores the marks those granules had (the buffer's own, or a no-copy buffer's partial first
// granule, host/src/buffer.cpp).
class BindingMarks {
 public:
  explicit BindingMarks(const abi::DispatchRequest& request);
  ~BindingMarks();
  BindingMarks(const BindingMarks&) = delete;
  BindingMarks& operator=(const BindingMarks&) = delete;

 private:
  struct Marked {
    const char* contents;
    const char* lowest;          // the lowest bound offset's address
    const char* end;             // the buffer's end
    std::vector<uint8_t> saved;  // the shadow of the granules from contents' to lowest's
  };
  std::vector<Marked> marked_;
};

}  // namespace metalsim::checks
