#pragma once
// The trellis family's fast native baselines (kernels/spec/baseline.h), shared by the specs
// (kernels_bench, metalsim bench) and bench/trellis_bench.cpp: the weights dequantized once to
// dense float (prepared, not timed), then float GEMMs with Eigen on the same OpenMP threads. The
// kernels decode the trellis on every call, so the ratio also prices that decoding.
//
// Only std::vector crosses this header: the baselines are compiled with the kernels' target flags
// (AVX with F16C), under which Eigen aligns its allocations differently from the rest of the
// program, so an Eigen matrix made on one side and freed on the other corrupts the heap.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/spec/baseline.h"
#include "kernels/trellis/trellis_problem.h"

namespace metalsim::kernels::trellis {

// c [M, N] = a [M, K] x w [K, N], row-major floats.
struct GemmBaselineData {
  uint32_t M = 0, K = 0, N = 0;
  std::vector<float> a, w, c;
};
GemmBaselineData prepare_gemm_baseline(std::span<const half_t> a, uint32_t M,
                                       const TrellisWeights& weights);
// Column blocks of w over the OpenMP threads (a decode's M = 1 too, which Eigen's own GEMV would
// run on one thread).
void gemm_baseline(GemmBaselineData& d);

// out [M, hidden] = sum over each token's experts of prob * down(silu(x gate) * (x up)).
struct MoeBaselineData {
  MoeShape shape;
  MoeRouting routing;
  std::vector<float> x, out;
  std::vector<std::vector<float>> gate, up, down;  // per expert, row-major
};
MoeBaselineData prepare_moe_baseline(const MoeProblem& p);
// Per expert: its tokens gathered, gate and up GEMMs, SwiGLU, the down GEMM, a weighted add.
void moe_baseline(MoeBaselineData& d);

}  // namespace metalsim::kernels::trellis
