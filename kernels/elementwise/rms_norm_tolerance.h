#pragma once
// rms_norm's tolerance (half output), written once for its spec and for bench/ceiling_bench.cpp.
// Why these figures: docs/kernels/elementwise.md.
#include <cstdint>
#include "kernels/spec/spec.h"

namespace metalsim::kernels::elementwise {

// Half output; the sum of squares in float adds up to hidden * 2^-24 relative.
inline spec::Tolerance rms_norm_tolerance(uint32_t hidden) {
  return {0, 0x1p-11 + (hidden + 16) * 0x1p-24, "half output + float sum of squares"};
}

}  // namespace metalsim::kernels::elementwise
