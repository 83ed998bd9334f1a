#pragma once
// Whether this build's kernels carry what the argument-reads pass finds (inactive arguments,
// required function constants): the pass runs in the access-check plugin, on optimised code. A
// build without the plugin knows no reads, and at -O0 (the debug preset, whose kernels are built
// as its tests are) every load stays: every argument counts as read, no constant as required.
#include "simt/engine/kernel_variants.h"

namespace metalsim::front::testing {

inline bool reads_found() {
#ifdef __OPTIMIZE__
  return engine::fast_variants_built();
#else
  return false;
#endif
}

}  // namespace metalsim::front::testing
