#pragma once
// ThreadSanitizer annotations for racecheck (the tsan preset); no-ops in every other build.
// Lanes are TSan fibers that switch without synchronising; the ordering that MSL guarantees is
// recorded explicitly: a barrier or a simd collective releases at arrival and acquires at
// departure, so a conflicting pair of accesses with no barrier between them is a race.
#if defined(METALSIM_RACECHECK)
#include <sanitizer/tsan_interface.h>
// Exported by libtsan, not declared by GCC 12's tsan_interface.h.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace metalsim::checks::race {

#if defined(METALSIM_RACECHECK)
inline constexpr bool kEnabled = true;
inline void release(void* token) { __tsan_release(token); }
inline void acquire(void* token) { __tsan_acquire(token); }
// The scheduler's own reads and writes of lane frames (a collective's combine step) are not
// the kernel's accesses.
inline void ignore_begin() { __tsan_ignore_thread_begin(); }
inline void ignore_end() { __tsan_ignore_thread_end(); }
#else
inline constexpr bool kEnabled = false;
inline void release(void*) {}
inline void acquire(void*) {}
inline void ignore_begin() {}
inline void ignore_end() {}
#endif

// ignore_begin/ignore_end for a scope, ended on the way out of an exception too (a lane that
// diagnoses a divergent barrier throws out of its bookkeeping).
class IgnoreScope {
 public:
  IgnoreScope() { ignore_begin(); }
  ~IgnoreScope() { end(); }
  IgnoreScope(const IgnoreScope&) = delete;
  IgnoreScope& operator=(const IgnoreScope&) = delete;
  void end() {
    if (active_) ignore_end();
    active_ = false;
  }

 private:
  bool active_ = true;
};

}  // namespace metalsim::checks::race
