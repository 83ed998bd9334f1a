#pragma once
// GGML blocks (kernels/formats/ggml_blocks.h) dequantized exactly, and the Eigen reference
// C [M, N] = dequant(A) [M, K] x B [K, N], in double.
#include <cstdint>
#include <vector>

#include "kernels/formats/ggml_blocks.h"

namespace metalsim::kernels::quantized_matmul {

using formats::BlockQ4_0;
using formats::BlockQ4_K;
using formats::BlockQ5_K;
using formats::BlockQ8_0;
using formats::half_t;
using formats::k_scale_min;

// One row of `k` values from ceil(k / block) blocks (values past k are ignored).
void dequantize(const BlockQ4_0* blocks, int64_t k, double* out);
void dequantize(const BlockQ8_0* blocks, int64_t k, double* out);
void dequantize(const BlockQ4_K* blocks, int64_t k, double* out);
void dequantize(const BlockQ5_K* blocks, int64_t k, double* out);

// A: m rows of `blocks_per_row` blocks each, holding k values; B [k, n] half, row-major.
template <class Block>
std::vector<double> matmul_ref(const std::vector<Block>& a, int64_t blocks_per_row,
                               const std::vector<half_t>& b, int64_t m, int64_t n, int64_t k);

}  // namespace metalsim::kernels::quantized_matmul
