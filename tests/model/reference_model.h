#pragma once
// An independent forward pass of the model, for the tests: Eigen, in
// double, over the exactly dequantized weights, the whole sequence at once: every projection a
// matrix product over all positions, attention as softmax(Q K^T / sqrt(d) + mask) V with an
// explicit mask (causal; with a rotating cache, the sliding window: query i sees key j when
// i - window < j <= i). It shares nothing with the runner but the weights and the config: no
// KV cache, no per-token loop, no metalsim kernel.
#include <cstdint>
#include <span>
#include <vector>

#include "host/model/model_config.h"
#include "host/model/model_weights.h"

namespace metalsim::model::reference {

struct ReferenceRun {
  // logits[t]: the vocab logits after the token at position t.
  std::vector<std::vector<double>> logits;
  // keys[l][t * kv_dim + i], values[l][...]: layer l's K (after RoPE) and V of position t,
  // heads side by side, as a KV cache holds them.
  std::vector<std::vector<double>> keys, values;
};

class ReferenceModel {
 public:
  // Keeps references: config and weights must outlive the model.
  ReferenceModel(const ModelConfig& config, const ModelWeights& weights);

  // The tokens at positions 0 .. n - 1. Logits are computed for the positions from
  // `logits_from` on (the lm_head product is most of the cost at a large vocabulary).
  ReferenceRun run(std::span<const uint32_t> tokens, size_t logits_from = 0) const;

  // Greedy: the `count` tokens that follow `prompt`, each the argmax of the last logits
  // (ties to the lowest id, as the argmax kernel).
  std::vector<uint32_t> generate(std::span<const uint32_t> prompt, size_t count) const;

 private:
  const ModelConfig& config_;
  const ModelWeights& weights_;
};

// The index of the largest value (the lowest index among equals).
uint32_t argmax(std::span<const double> values);

}  // namespace metalsim::model::reference
