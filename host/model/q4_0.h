#pragma once
// GGML's Q4_0 format on the host (the block type is kernels/formats/ggml_blocks.h's, shared
// with every family's reference) and a quantizer for it: a block of 32 values shares one half scale
// d, each value is a nibble q with value (q - 8) * d.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/formats/ggml_blocks.h"

namespace metalsim::model {

using BlockQ4_0 = kernels::formats::BlockQ4_0;

// Quantizes `values` (a multiple of 32 long) block by block: d = m / -8, where m is the value
// of largest magnitude (so m itself maps to nibble 0, exactly), nibbles rounded to nearest
// and clamped to 0..15.
std::vector<BlockQ4_0> quantize_q4_0(std::span<const float> values);

}  // namespace metalsim::model
