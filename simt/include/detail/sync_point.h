#pragma once
// The sync points of the engine (simt/engine/sync.h) as the MSL headers call them: barriers,
// simd and quad functions, simdgroup_matrix operations.
#include <source_location>

#include "simt/engine/sync.h"

// The call site: the last, defaulted parameter of every MSL function that synchronises. The
// engine tells barriers and collectives apart by it, and its .metal line (through the front's
// #line directives) is what reports name.
#define METALSIM_CALL_SITE std::source_location site = std::source_location::current()

// A barrier call is never duplicated. Clang (the kernel compiler) would otherwise fully unroll a
// loop of constant trip count around a barrier (`for (stride = 128; stride > 0; stride >>= 1)
// { ...; threadgroup_barrier(...); }`, softmax_as_documented): each iteration becomes a call
// site of its own where every lane suspends and resumes, and the unrolled kernel measured
// slower on fibers than the rolled one. noduplicate is what OpenCL's barrier carries for the
// same reason; it does not change what a kernel computes. The MSL functions that call these are
// always inlined (METALSIM_SYNC_INLINE): LLVM does not inline a function holding a noduplicate
// call into more than one caller, and the call would stay duplicable behind it.
#if defined(__clang__)
namespace metalsim::engine {
[[clang::noduplicate]] void threadgroup_barrier(std::source_location site);
[[clang::noduplicate]] void simdgroup_barrier(std::source_location site);
}  // namespace metalsim::engine
#endif
#define METALSIM_SYNC_INLINE [[gnu::always_inline]] inline
