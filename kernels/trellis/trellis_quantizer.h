#pragma once
// A quantizer into the trellis format, for tests and benchmarks: from dense matrices to
// packed indices, scales, grid and signs that dequantize back close to them.
//
// The document's format has no trellis state: each index is a plain codebook entry, so the
// nearest level is the best index for a given scale. This is what the quantizer does (EXL3's
// Viterbi search and Hadamard rotation are outside what the document's formula describes).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/trellis/trellis_format.h"

namespace metalsim::kernels::trellis {

// 2^bits levels spaced 1 / 2^(bits-1) apart, from -(2^(bits-1) - 1) / 2^(bits-1) to 1.0:
// for 3 bits the document's example, [-0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1.0].
std::vector<float> make_grid(uint32_t bits);

struct QuantizerOptions {
  uint32_t bits = 4;
  uint32_t group_size = 128;
  uint64_t sign_seed = 1;             // su and sv are random +-1 drawn from it
  std::function<uint32_t()> padding;  // indices of partial tiles outside K x N (none: 0)
};

// Quantizes `experts` dense matrices W_e [K, N] (row-major, stacked) with the grid of
// make_grid(bits). Per (group, column) the scale is the signed value of largest magnitude of
// w * su[k] * sv[n] (so it maps onto the level 1.0; scales are negative where that value is);
// each index is the level nearest to w * su[k] * sv[n] / scale (the lower one on a tie).
TrellisWeights quantize(std::span<const float> dense, uint32_t K, uint32_t N, uint32_t experts,
                        const QuantizerOptions& options);

// The index of the level of `grid` nearest to x (the lowest such index on a tie).
uint32_t nearest_level(const std::vector<float>& grid, float x);

}  // namespace metalsim::kernels::trellis
