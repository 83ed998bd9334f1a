#pragma once
// The two compiled variants of a kernel (docs/architecture.md, "Two variants of every kernel"):
// the checked one, instrumented by the access-check pass, is what KernelInfo::entry and a
// lane-loop step are; the access-check pass also emits an uninstrumented copy of each
// (simt/instrument/fast_variant.h) and registers it here. A dispatch with mem, race and init off
// runs the copy: a check that is off costs nothing.
#include "simt/abi/kernel.h"
#include "simt/base/check_set.h"

namespace metalsim::engine {

// The fast variant registered for `checked` (a kernel's entry or a lane-loop step), or nullptr:
// its library was compiled without the access-check pass (then its one variant has no
// instrumentation either), or under ThreadSanitizer.
const void* find_fast_variant(const void* checked);

template <class Function>
Function fast_variant_of(Function checked) {
  return reinterpret_cast<Function>(
      const_cast<void*>(find_fast_variant(reinterpret_cast<const void*>(checked))));
}

// Whether this build's kernels have a fast variant each: those built with the access-check pass
// (access_check.h's kernels_built_with_access_checks, which says when they are not).
bool fast_variants_built();

// Whether `kernel` has a fast variant (of its fibers' entry; its lane loops have one with it).
bool has_fast_variant(const abi::KernelInfo& kernel);

// Whether a dispatch under `checks` needs the instrumented code: bounds (mem), the shadow
// racecheck (race) or initcheck's runs (init) are on.
bool needs_checked_variant(const metalsim::CheckSet& checks);

}  // namespace metalsim::engine

// Called from a global constructor the access-check pass adds to each module, once per entry
// and step.
extern "C" void __metalsim_fast_variant_register(const void* checked, const void* fast);
