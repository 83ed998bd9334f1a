#pragma once
// The trellis family's fast native baselines (kernels/spec/baseline.h), shared by the specs
// (kernels_bench, metalsim bench) and bench/trellis_bench.cpp: float GEMMs with Eigen on the same
// OpenMP threads, over weights that are either
//   Decode::on_the_fly  decoded from the trellis format inside every call, as the kernels do:
//                       per column block of 64 and panel of 256 rows, the indices unpacked a tile
//                       row (16 indices) at a time, looked up, scaled and rounded to half into a
//                       panel the thread then multiplies. The specs' baseline: the fair one.
//   Decode::once        dequantized once to dense float when prepared (not timed); the ratio to
//                       it also prices the decoding (bench/trellis_bench.cpp's second column).
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

enum class Decode { on_the_fly, once };

// c [M, N] = a [M, K] x w [K, N], row-major floats.
struct GemmBaselineData {
  uint32_t M = 0, K = 0, N = 0;
  std::vector<float> a, w, c;              // w: the dense weights of Decode::once, else empty
  const TrellisWeights* packed = nullptr;  // Decode::on_the_fly's weights: not owned, must outlive
};
GemmBaselineData prepare_gemm_baseline(std::span<const half_t> a, uint32_t M,
                                       const TrellisWeights& weights, Decode decode);
// Column blocks of w over the OpenMP threads (a decode's M = 1 too, which Eigen's own GEMV would
// run on one thread).
void gemm_baseline(GemmBaselineData& d);

// out [M, hidden] = sum over each token's experts of prob * down(silu(x gate) * (x up)).
struct MoeBaselineData {
  MoeShape shape;
  MoeRouting routing;
  std::vector<float> x, out;
  std::vector<std::vector<float>> gate, up, down;  // Decode::once: per expert, row-major
  const MoeProblem* packed = nullptr;              // Decode::on_the_fly: not owned
};
MoeBaselineData prepare_moe_baseline(const MoeProblem& p, Decode decode);
// Per expert: its tokens gathered, gate and up GEMMs, SwiGLU, the down GEMM, a weighted add.
void moe_baseline(MoeBaselineData& d);

}  // namespace metalsim::kernels::trellis
