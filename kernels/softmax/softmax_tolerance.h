#pragma once
// The softmax family's tolerance, written once for its spec and for bench/ceiling_bench.cpp.
// Why these figures: docs/kernels/softmax.md.
#include <cstdint>
#include "kernels/spec/spec.h"

namespace metalsim::kernels::softmax {

// Half output: half an ulp at the output scale; the float sum adds ~cols * 2^-24 relative;
// abs: outputs below half's normal range round to multiples of 2^-24.
inline spec::Tolerance softmax_tolerance(uint32_t cols) {
  return {0x1p-25, 0x1p-11 + (cols + 16) * 0x1p-24, "half output + float row sum"};
}

}  // namespace metalsim::kernels::softmax
