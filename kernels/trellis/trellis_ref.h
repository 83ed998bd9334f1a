#pragma once
// Eigen references of the trellis family, in double: dequantize to a dense matrix, then
// multiply. Each output element comes with the error a correct kernel may make there (a
// first-order bound from the kernels' arithmetic, docs/kernels/trellis.md "Tolerance"), because a
// GEMM's error scales with sum |a| |w| along K, not with the largest output.
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "kernels/trellis/trellis_format.h"

namespace metalsim::kernels::trellis {

using half_t = _Float16;
using MatrixXdR = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The weight (k, n) of expert e as the kernels use it: grid[idx] * scale * su[k] * sv[n]
// evaluated in float from left to right, then rounded to half (the document's `half
// dequant_vals`, its B staging tiles). An index >= n_levels reads grid[0] (section 5.1's clamp).
float dequantized_weight(const TrellisWeights& w, uint32_t e, uint32_t k, uint32_t n);

// W_e [K, N] of those weights.
MatrixXdR dequantize(const TrellisWeights& w, uint32_t e = 0);

// Expected outputs and, per element, the largest error allowed there.
struct Reference {
  std::vector<double> value;
  std::vector<double> bound;
};

// C [M, N] = A [M, K] (half, row-major) x W. Kernels: half x half products (exact in float),
// float accumulation along K, half output:
//   bound = 2^-11 |c| + (K + 2) 2^-24 sum_k |a_k| |w_k| + 2^-25.
Reference gemm_ref(std::span<const half_t> a, uint32_t M, const TrellisWeights& w);

// Token routing of the MoE layer: token m uses experts expert_ids[m * top_k + j] with weights
// probs[m * top_k + j] (distinct experts per token, each < num_experts).
struct MoeRouting {
  uint32_t M = 0, top_k = 1;
  std::vector<uint32_t> expert_ids;
  std::vector<float> probs;
};

// out [M, K] = sum_j probs[m, j] * down_e(silu(x gate_e) * (x up_e)), e = expert_ids[m, j];
// gate and up are [K, N] per expert, down [N, K]. The kernels store the SwiGLU product h in half
// between the two GEMMs; the bound carries that rounding, the float accumulations of both GEMMs
// (through silu's derivative, at most 1.1) and float silu.
Reference moe_ref(std::span<const half_t> x, const MoeRouting& routing, const TrellisWeights& gate,
                  const TrellisWeights& up, const TrellisWeights& down);

}  // namespace metalsim::kernels::trellis
