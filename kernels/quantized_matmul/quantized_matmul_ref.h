#pragma once
// The Eigen reference C [M, N] = dequant(A) [M, K] x B [K, N], in double, of GGML blocks
// (kernels/formats/ggml_blocks.h, dequantized by kernels/formats/ggml_dequantize.h).
#include <cstdint>
#include <vector>

#include "kernels/formats/ggml_blocks.h"
#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::kernels::quantized_matmul {

using formats::BlockQ4_0;
using formats::BlockQ4_K;
using formats::BlockQ5_K;
using formats::BlockQ8_0;
using formats::half_t;
using formats::k_scale_min;

using formats::dequantize;

// A: m rows of `blocks_per_row` blocks each, holding k values; B [k, n] half, row-major.
template <class Block>
std::vector<double> matmul_ref(const std::vector<Block>& a, int64_t blocks_per_row,
                               const std::vector<half_t>& b, int64_t m, int64_t n, int64_t k);

}  // namespace metalsim::kernels::quantized_matmul
