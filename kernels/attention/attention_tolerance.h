#pragma once
// The attention family's tolerance (half output), written once for its spec and for
// bench/ceiling_bench.cpp. Why these figures: docs/kernels/attention.md.
#include "kernels/spec/spec.h"

namespace metalsim::kernels::attention {

inline spec::Tolerance attention_tolerance() {
  return {1e-6, 1e-3,
          "half output: the output's own rounding is 2^-11 of |O| <= 4.9e-4 of max|O|; float "
          "accumulation and exp add < 1e-5; ADR-003's criterion is 1e-3 of the largest output"};
}

}  // namespace metalsim::kernels::attention
