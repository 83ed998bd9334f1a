#pragma once
// A model's weights on the host, generated in-process from a seed (nothing is downloaded):
// every projection in GGML Q4_0 blocks (row-major [out, in], blocks along in), the norms in
// float, the embedding table in Q4_0 and tied to the lm_head.
#include <cstdint>
#include <vector>

#include "host/model/model_config.h"
#include "host/model/q4_0.h"

namespace metalsim::model {

struct LayerWeights {
  std::vector<BlockQ4_0> q, k, v, o;       // [q_dim, hidden], [kv_dim, hidden] x 2, [hidden, q_dim]
  std::vector<BlockQ4_0> gate, up;         // [intermediate, hidden]
  std::vector<BlockQ4_0> down;             // [hidden, intermediate]
  std::vector<float> attn_norm, ffn_norm;  // [hidden]
};

struct ModelWeights {
  std::vector<BlockQ4_0> embedding;  // [vocab, hidden]; also the lm_head (tied)
  std::vector<LayerWeights> layers;
  std::vector<float> final_norm;  // [hidden]
};

// Uniform weights with the standard deviation of a 1/sqrt(fan_in) initialisation (gain 4 on the
// O and down projections, which write the residual stream: see model_weights.cpp); norm weights
// in [0.8, 1.2]; an embedding whose logits have a standard deviation of about 2. The same seed
// gives the same weights on every machine.
ModelWeights generate_weights(const ModelConfig& config, uint64_t seed);

}  // namespace metalsim::model
