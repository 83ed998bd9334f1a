#pragma once
// The multi-token mat-vec's reference: output [batch, out_dim] = input [batch, in_dim] x
// dequant(W)^T with Eigen, in double, from GGML Q4_0 rows dequantized exactly
// (kernels/formats/ggml_blocks.h, kernels/formats/ggml_dequantize.h).
#include <cstdint>
#include <vector>

#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::kernels::multi_token_matvec {

using formats::BlockQ4_0;

// W: out_dim rows of in_dim / 32 blocks; input row-major [batch, in_dim]. `initial`, if not
// empty, is the output before the call ([batch, out_dim]): the accumulate kernel adds to it.
std::vector<double> multi_token_matvec_ref(const std::vector<BlockQ4_0>& weight,
                                           const std::vector<float>& input,
                                           const std::vector<float>& initial, int64_t out_dim,
                                           int64_t in_dim, int64_t batch);

// The sums of the terms' magnitudes that make each output: |initial| + |input| x |dequant(W)|^T,
// the scale of each output's float rounding error (spec::compare_output_of_sums).
std::vector<double> multi_token_matvec_magnitudes(const std::vector<BlockQ4_0>& weight,
                                                  const std::vector<float>& input,
                                                  const std::vector<float>& initial,
                                                  int64_t out_dim, int64_t in_dim, int64_t batch);

// The family's tolerance, relative to the larger of the largest |output| and the output's sum of
// magnitudes above (docs/kernels/multi_token_matvec.md):
// dequantization is exact in float, so the error is float accumulation, which the bound
// (in_dim + 32) * 2^-24 covers with room (the sum runs over in_dim products in float, plus the
// 32-lane reduction and, for the accumulate kernel, one add to the old output). Outputs are
// float: no rounding to half.
inline double relative_tolerance(int64_t in_dim) { return double(in_dim + 32) * 0x1p-24; }

}  // namespace metalsim::kernels::multi_token_matvec
