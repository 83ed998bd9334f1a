#include "host/model/model_weights.h"

#include <cmath>

#include "kernels/spec/inputs.h"

namespace metalsim::model {
namespace {

// rows x cols values of standard deviation `sd` (uniform: half-width sd * sqrt(3)), quantized.
std::vector<BlockQ4_0> random_matrix(spec::InputGenerator& gen, uint32_t rows, uint32_t cols,
                                     double sd) {
  const double half_width = sd * std::sqrt(3.0);
  std::vector<float> values =
      gen.uniform_vector<float>(size_t(rows) * cols, -half_width, half_width);
  return quantize_q4_0(values);
}

// A projection with `in` inputs: sd gain / sqrt(in).
std::vector<BlockQ4_0> projection(spec::InputGenerator& gen, uint32_t out, uint32_t in,
                                  double gain) {
  return random_matrix(gen, out, in, gain / std::sqrt(double(in)));
}

// The O and down projections write the residual stream. With the embedding tied to the
// lm_head, a token's own embedding scores itself highest; at gain 1 that term wins and greedy
// decoding mostly repeats a token. Gain 4 (twice the embedding's scale) lets the layers decide.
constexpr double kResidualGain = 4.0;

std::vector<float> norm_weight(spec::InputGenerator& gen, uint32_t n) {
  return gen.uniform_vector<float>(n, 0.8, 1.2);
}

}  // namespace

ModelWeights generate_weights(const ModelConfig& c, uint64_t seed) {
  spec::InputGenerator gen(seed);
  ModelWeights w;
  // logit = normalised hidden (rms ~1) . embedding row: sd 2 / sqrt(hidden) per element gives
  // logits of sd ~2, far apart compared with the float pipeline's rounding.
  w.embedding = random_matrix(gen, c.vocab, c.hidden, 2.0 / std::sqrt(double(c.hidden)));
  w.layers.resize(c.layers);
  for (LayerWeights& l : w.layers) {
    l.attn_norm = norm_weight(gen, c.hidden);
    l.q = projection(gen, c.q_dim(), c.hidden, 1.0);
    l.k = projection(gen, c.kv_dim(), c.hidden, 1.0);
    l.v = projection(gen, c.kv_dim(), c.hidden, 1.0);
    l.o = projection(gen, c.hidden, c.q_dim(), kResidualGain);
    l.ffn_norm = norm_weight(gen, c.hidden);
    l.gate = projection(gen, c.intermediate, c.hidden, 1.0);
    l.up = projection(gen, c.intermediate, c.hidden, 1.0);
    l.down = projection(gen, c.hidden, c.intermediate, kResidualGain);
  }
  w.final_norm = norm_weight(gen, c.hidden);
  return w;
}

}  // namespace metalsim::model
