#pragma once
// TrellisMoE: the host dispatch of the mixture-of-experts kernels (gemm_trellis_moe.metal; the
// Trellis document, section 7). gate and up are stacks of E trellis matrices [hidden,
// intermediate], down a stack of E [intermediate, hidden], all of one bit width, group size and
// grid. forward: h = SwiGLU of the routed experts (gemm_trellis_moe_gate_up), then the
// probability-weighted down projections (gemm_trellis_moe_down), in one command buffer.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/trellis/trellis_format.h"
#include "kernels/trellis/trellis_ref.h"
#include "metalsim/Metal.hpp"

namespace metalsim::kernels::trellis {

// The document's TrellisParams (section 7), as both kernels take it: K = hidden, N =
// intermediate.
struct TrellisParams {
  uint32_t M, K, N, num_experts, top_k, bits, group_size, n_levels;
};
static_assert(sizeof(TrellisParams) == 32);

// Throws std::invalid_argument naming the first routing entry that is not an expert below
// num_experts, or an expert a token uses twice.
void check_routing(const uint32_t* expert_ids, uint32_t M, uint32_t top_k, uint32_t num_experts);

class TrellisMoE {
 public:
  // Throws std::invalid_argument when a projection fails section 5.2's checks or the three do
  // not fit together (the message names the projection and the dimension).
  TrellisMoE(MTL::Device* device, TrellisWeights gate, TrellisWeights up, TrellisWeights down,
             uint32_t top_k);

  uint32_t hidden() const { return gate_.shape.K; }
  uint32_t intermediate() const { return gate_.shape.N; }
  uint32_t experts() const { return gate_.shape.experts; }
  uint32_t top_k() const { return top_k_; }
  TrellisParams params(uint32_t M) const;

  // Encodes both dispatches: x [M, hidden] half, expert_ids [M, top_k] uint32, expert_probs
  // [M, top_k] float, h [M * top_k, intermediate] half (scratch), out [M, hidden] half. The
  // routing is checked (from the buffer's contents) now.
  void encode(MTL::ComputeCommandEncoder* encoder, MTL::Buffer* x, MTL::Buffer* expert_ids,
              MTL::Buffer* expert_probs, MTL::Buffer* h, MTL::Buffer* out, uint32_t M);

  // One command buffer of `queue`; returns out. Throws std::runtime_error with its error.
  std::vector<half_t> forward(MTL::CommandQueue* queue, std::span<const half_t> x,
                              const MoeRouting& routing);

 private:
  MTL::Device* device_;
  TrellisWeights gate_, up_, down_;
  uint32_t top_k_;
  NS::SharedPtr<MTL::Buffer> grid_;
  NS::SharedPtr<MTL::Buffer> tensors_[3][4];  // gate, up, down x packed, scales, su, sv
  NS::SharedPtr<MTL::ComputePipelineState> gate_up_, down_pso_;
};

}  // namespace metalsim::kernels::trellis
