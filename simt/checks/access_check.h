#pragma once
// What instrumented kernels call (simt/instrument, docs/checks.md): the slow path of every load
// and store whose shadow granule is not plain (access_shadow.h), and of every access while a
// racecheck dispatch runs. Byte-precise bounds (memcheck) and the shadow racecheck start here.
//
//   __metalsim_access(address, bytes, flags)     one access of `bytes` bytes
//   __metalsim_access_masked(address, element_bytes, mask, flags)
//                                                llvm.masked.load/store: element i when bit i
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

// Marks, for the length of a dispatch, the bytes of each bound buffer before its lowest bound
// offset (kBeforeBinding) and the first granule of a binding at an odd offset; the destructor
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
