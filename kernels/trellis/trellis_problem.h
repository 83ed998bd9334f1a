#pragma once
// Seeded inputs of the trellis family, shared by the specs, the tests and the benchmarks: the
// activations and a quantized weight matrix (or stack of experts) of a given shape, and the
// routing of an MoE layer.
#include <cstdint>
#include <vector>

#include "kernels/trellis/trellis_format.h"
#include "kernels/trellis/trellis_ref.h"

namespace metalsim::kernels::trellis {

struct GemmShape {
  uint32_t M = 1, K = 64, N = 64;
  uint32_t bits = 4, group_size = 128;
  uint32_t n_levels = 0;  // 0: 2^bits; fewer: the grid is cut short, so indices >= n_levels occur
};

struct GemmProblem {
  GemmShape shape;
  std::vector<half_t> a;  // [M, K], uniform in [-1, 1]
  TrellisWeights
      weights;  // quantized from N(0, 1) weights; partial tiles padded with random indices
};

// Weights of `experts` K x N matrices drawn from N(0, sigma^2) with `seed`, quantized (random
// padding; the grid cut to n_levels when asked).
TrellisWeights make_weights(uint32_t K, uint32_t N, uint32_t experts, const GemmShape& format,
                            double sigma, uint64_t seed);
GemmProblem make_gemm_problem(const GemmShape& shape, uint64_t seed);

// An MoE layer: x [M, hidden], gate and up [hidden, intermediate] per expert, down
// [intermediate, hidden] per expert, top_k distinct experts per token with softmax-like weights.
struct MoeShape {
  uint32_t M = 1, hidden = 64, intermediate = 64, experts = 4, top_k = 2;
  uint32_t bits = 4, group_size = 128;
};

struct MoeProblem {
  MoeShape shape;
  std::vector<half_t> x;
  MoeRouting routing;
  TrellisWeights gate, up, down;
};

MoeProblem make_moe_problem(const MoeShape& shape, uint64_t seed);

}  // namespace metalsim::kernels::trellis
