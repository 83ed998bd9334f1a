#include "kernels/trellis/trellis_problem.h"

#include <cmath>
#include <numeric>

#include "kernels/spec/inputs.h"
#include "kernels/trellis/trellis_quantizer.h"

namespace metalsim::kernels::trellis {

TrellisWeights make_weights(uint32_t K, uint32_t N, uint32_t experts, const GemmShape& format,
                            double sigma, uint64_t seed) {
  spec::InputGenerator gen(seed);
  std::vector<float> dense(size_t(experts) * K * N);
  for (float& w : dense) w = float(sigma * gen.normal());
  QuantizerOptions options;
  options.bits = format.bits;
  options.group_size = format.group_size;
  options.sign_seed = gen.next_u64();
  options.padding = [&gen, bits = format.bits] { return uint32_t(gen.next_u64() >> (64 - bits)); };
  TrellisWeights w = quantize(dense, K, N, experts, options);
  if (format.n_levels != 0 && format.n_levels < w.shape.n_levels) {
    w.shape.n_levels = format.n_levels;
    w.grid.resize(format.n_levels);
  }
  return w;
}

GemmProblem make_gemm_problem(const GemmShape& shape, uint64_t seed) {
  spec::InputGenerator gen(seed);
  std::vector<half_t> a = gen.uniform_vector<half_t>(size_t(shape.M) * shape.K, -1, 1);
  return {shape, std::move(a), make_weights(shape.K, shape.N, 1, shape, 1.0, gen.next_u64())};
}

MoeProblem make_moe_problem(const MoeShape& s, uint64_t seed) {
  MoeProblem p;
  p.shape = s;
  spec::InputGenerator gen(seed);
  p.x = gen.uniform_vector<half_t>(size_t(s.M) * s.hidden, -1, 1);
  const GemmShape format{1, 0, 0, s.bits, s.group_size, 0};
  // Weights of standard deviation 1 / sqrt(inputs) keep the gate's pre-activations near silu's
  // bend and every output near 1, whatever the sizes.
  const double in_sigma = 1 / std::sqrt(double(s.hidden)),
               out_sigma = 1 / std::sqrt(double(s.intermediate));
  p.gate = make_weights(s.hidden, s.intermediate, s.experts, format, in_sigma, gen.next_u64());
  p.up = make_weights(s.hidden, s.intermediate, s.experts, format, in_sigma, gen.next_u64());
  p.down = make_weights(s.intermediate, s.hidden, s.experts, format, out_sigma, gen.next_u64());
  p.routing.M = s.M;
  p.routing.top_k = s.top_k;
  std::vector<uint32_t> order(s.experts);
  for (uint32_t m = 0; m < s.M; ++m) {
    std::iota(order.begin(), order.end(), 0u);
    for (uint32_t i = 0; i + 1 < s.experts; ++i)  // a seeded shuffle: the first top_k are distinct
      std::swap(order[i], order[size_t(gen.integer(i, s.experts - 1))]);
    double total = 0;
    std::vector<double> weight(s.top_k);
    for (double& w : weight) total += (w = gen.uniform(0.1, 1.0));
    for (uint32_t j = 0; j < s.top_k; ++j) {
      p.routing.expert_ids.push_back(order[j]);
      p.routing.probs.push_back(float(weight[j] / total));
    }
  }
  return p;
}

}  // namespace metalsim::kernels::trellis
