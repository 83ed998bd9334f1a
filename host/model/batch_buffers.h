#pragma once
// The gpu-perf-phase3 document's batch buffers ("Component 2"), sized for one call's
// batch of n tokens: floats per token in parentheses.
//   hidden_a (hidden)        ping-pong A: embeddings, then the residual stream
//   hidden_b (hidden)        ping-pong B: RMSNorm output, the projections' input
//   q (q_dim), k, v (kv_dim) projections
//   attn_out (q_dim)         attention output, the O projection's input
//   gate, up, silu (intermediate)
// plus the token ids and the embedding's per-token status. Each buffer is exactly as long as
// the batch needs, so a kernel that runs past a token's rows meets the guard page.
#include <cstdint>

#include "host/model/model_config.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model {

struct BatchBuffers {
  BatchBuffers(MTL::Device* device, const ModelConfig& config, uint32_t tokens);

  uint32_t tokens;
  NS::SharedPtr<MTL::Buffer> token_ids, status;
  NS::SharedPtr<MTL::Buffer> hidden_a, hidden_b, q, k, v, attn_out, gate, up, silu;

  // Bytes of the float buffers: tokens * (2 hidden + 2 q_dim + 2 kv_dim + 3 intermediate) * 4.
  static uint64_t float_bytes(const ModelConfig& config, uint32_t tokens);
};

}  // namespace metalsim::model
