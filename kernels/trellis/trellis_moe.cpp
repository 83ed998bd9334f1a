#include "kernels/trellis/trellis_moe.h"

#include <stdexcept>

#include "kernels/trellis/trellis_debug.h"
#include "kernels/trellis/trellis_linear.h"

namespace metalsim::kernels::trellis {
namespace {

constexpr uint32_t kTileRows = 32, kTileCols = 128;  // both kernels' output tiles

std::string str(uint64_t v) { return std::to_string(v); }

// gate and up [hidden, intermediate], down [intermediate, hidden], one format for all three.
void check_projections(const TrellisWeights& gate, const TrellisWeights& up,
                       const TrellisWeights& down) {
  check_shapes(gate, "TrellisMoE gate_proj");
  check_shapes(up, "TrellisMoE up_proj");
  check_shapes(down, "TrellisMoE down_proj");
  const TrellisShape &g = gate.shape, &u = up.shape, &d = down.shape;
  auto require = [](bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument("TrellisMoE: " + message);
  };
  require(u.K == g.K && u.N == g.N, "up_proj is [" + str(u.K) + ", " + str(u.N) + "], gate_proj [" +
                                        str(g.K) + ", " + str(g.N) + "]");
  require(d.K == g.N, "down_proj has K = " + str(d.K) +
                          " rows, but the intermediate size (gate_proj's N) is " + str(g.N));
  require(d.N == g.K, "down_proj has N = " + str(d.N) +
                          " columns, but the hidden size (gate_proj's K) is " + str(g.K));
  for (const TrellisShape* s : {&u, &d}) {
    require(s->experts == g.experts, "the projections hold " + str(g.experts) + ", " +
                                         str(u.experts) + " and " + str(d.experts) + " experts");
    require(s->bits == g.bits && s->group_size == g.group_size && s->n_levels == g.n_levels,
            "the projections differ in bits, group_size or n_levels (one TrellisParams serves all "
            "three)");
  }
  require(up.grid == gate.grid && down.grid == gate.grid,
          "the projections have different grids (the kernels share one)");
}

}  // namespace

void check_routing(const uint32_t* expert_ids, uint32_t M, uint32_t top_k, uint32_t num_experts) {
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t j = 0; j < top_k; ++j) {
      const uint32_t e = expert_ids[size_t(m) * top_k + j];
      if (e >= num_experts)
        throw std::invalid_argument("TrellisMoE: expert_ids[" + str(m) + ", " + str(j) + "] = " +
                                    str(e) + " is not below num_experts = " + str(num_experts));
      for (uint32_t i = 0; i < j; ++i)
        if (expert_ids[size_t(m) * top_k + i] == e)
          throw std::invalid_argument("TrellisMoE: token " + str(m) + " routes to expert " +
                                      str(e) + " twice (j = " + str(i) + " and " + str(j) + ")");
    }
}

TrellisMoE::TrellisMoE(MTL::Device* device, TrellisWeights gate, TrellisWeights up,
                       TrellisWeights down, uint32_t top_k)
    : device_(device),
      gate_(std::move(gate)),
      up_(std::move(up)),
      down_(std::move(down)),
      top_k_(top_k) {
  check_projections(gate_, up_, down_);
  if (top_k_ < 1 || top_k_ > experts())
    throw std::invalid_argument("TrellisMoE: top_k = " + str(top_k_) +
                                " must be 1 .. num_experts = " + str(experts()));
  grid_ = make_buffer(device, gate_.grid);
  const TrellisWeights* projections[3] = {&gate_, &up_, &down_};
  for (int p = 0; p < 3; ++p) {
    tensors_[p][0] = make_buffer(device, projections[p]->packed);
    tensors_[p][1] = make_buffer(device, projections[p]->scales);
    tensors_[p][2] = make_buffer(device, projections[p]->su);
    tensors_[p][3] = make_buffer(device, projections[p]->sv);
  }
  gate_up_ = make_pipeline(device, "gemm_trellis_moe_gate_up");
  down_pso_ = make_pipeline(device, "gemm_trellis_moe_down");
}

TrellisParams TrellisMoE::params(uint32_t M) const {
  const TrellisShape& s = gate_.shape;
  return {M, s.K, s.N, s.experts, top_k_, s.bits, s.group_size, s.n_levels};
}

void TrellisMoE::encode(MTL::ComputeCommandEncoder* encoder, MTL::Buffer* x,
                        MTL::Buffer* expert_ids, MTL::Buffer* expert_probs, MTL::Buffer* h,
                        MTL::Buffer* out, uint32_t M) {
  if (M == 0) throw std::invalid_argument("TrellisMoE: M = 0 tokens");
  const size_t routes = size_t(M) * top_k_;
  require_length(x, size_t(M) * hidden() * sizeof(half_t), "TrellisMoE: x [M, hidden]");
  require_length(expert_ids, routes * sizeof(uint32_t), "TrellisMoE: expert_ids [M, top_k]");
  require_length(expert_probs, routes * sizeof(float), "TrellisMoE: expert_probs [M, top_k]");
  require_length(h, routes * intermediate() * sizeof(half_t),
                 "TrellisMoE: h [M * top_k, intermediate]");
  require_length(out, size_t(M) * hidden() * sizeof(half_t), "TrellisMoE: out [M, hidden]");
  const auto* ids = static_cast<const uint32_t*>(expert_ids->contents());
  check_routing(ids, M, top_k_, experts());
  const TrellisParams p = params(M);
  const MTL::Size threads(kThreadsPerThreadgroup, 1, 1);
  const MTL::Size grid_gate_up((p.N + kTileCols - 1) / kTileCols, (M + kTileRows - 1) / kTileRows,
                               p.num_experts);
  const MTL::Size grid_down((p.K + kTileCols - 1) / kTileCols, (M + kTileRows - 1) / kTileRows, 1);

  if (debug_enabled()) {
    const std::span<const half_t> xs(static_cast<const half_t*>(x->contents()),
                                     size_t(M) * hidden());
    DispatchInfo info{
        "gemm_trellis_moe_gate_up",
        M,
        {uint32_t(grid_gate_up.width), uint32_t(grid_gate_up.height), uint32_t(grid_gate_up.depth)},
        {kThreadsPerThreadgroup, 1, 1},
        gate_up_->staticThreadgroupMemoryLength(),
        false};
    debug_log(pre_dispatch_report(info, xs, gate_, "gate_proj") +
              pre_dispatch_report(info, xs, up_, "up_proj") +
              routing_report({ids, routes},
                             {static_cast<const float*>(expert_probs->contents()), routes},
                             experts()));
    info.kernel = "gemm_trellis_moe_down";
    info.grid[0] = uint32_t(grid_down.width), info.grid[2] = 1;
    info.threadgroup_memory = down_pso_->staticThreadgroupMemoryLength();
    debug_log(pre_dispatch_report(info, {}, down_, "down_proj"));
  }

  encoder->setComputePipelineState(gate_up_.get());
  encoder->setBuffer(x, 0, 0);
  encoder->setBuffer(expert_ids, 0, 1);
  for (int t = 0; t < 4; ++t) encoder->setBuffer(tensors_[0][t].get(), 0, 2 + t);
  for (int t = 0; t < 4; ++t) encoder->setBuffer(tensors_[1][t].get(), 0, 6 + t);
  encoder->setBuffer(grid_.get(), 0, 10);
  encoder->setBuffer(h, 0, 11);
  encoder->setBytes(&p, sizeof p, 12);
  encoder->dispatchThreadgroups(grid_gate_up, threads);

  encoder->setComputePipelineState(down_pso_.get());
  encoder->setBuffer(h, 0, 0);
  encoder->setBuffer(expert_ids, 0, 1);
  encoder->setBuffer(expert_probs, 0, 2);
  for (int t = 0; t < 4; ++t) encoder->setBuffer(tensors_[2][t].get(), 0, 3 + t);
  encoder->setBuffer(grid_.get(), 0, 7);
  encoder->setBuffer(out, 0, 8);
  encoder->setBytes(&p, sizeof p, 9);
  encoder->dispatchThreadgroups(grid_down, threads);
}

std::vector<half_t> TrellisMoE::forward(MTL::CommandQueue* queue, std::span<const half_t> x,
                                        const MoeRouting& routing) {
  const uint32_t M = routing.M;
  if (x.size() != size_t(M) * hidden() || routing.top_k != top_k_ ||
      routing.expert_ids.size() != size_t(M) * top_k_ ||
      routing.probs.size() != routing.expert_ids.size())
    throw std::invalid_argument(
        "TrellisMoE.forward: x holds " + str(x.size()) + " values and the routing " +
        str(routing.expert_ids.size()) + " ids, " + str(routing.probs.size()) +
        " probabilities with top_k " + str(routing.top_k) + ", for M = " + str(M) +
        ", hidden = " + str(hidden()) + ", top_k = " + str(top_k_));
  auto xb =
      NS::TransferPtr(device_->newBuffer(x.data(), x.size_bytes(), MTL::ResourceStorageModeShared));
  auto ids = make_buffer(device_, routing.expert_ids), probs = make_buffer(device_, routing.probs);
  auto h = NS::TransferPtr(device_->newBuffer(size_t(M) * top_k_ * intermediate() * sizeof(half_t),
                                              MTL::ResourceStorageModeShared));
  auto out = NS::TransferPtr(
      device_->newBuffer(size_t(M) * hidden() * sizeof(half_t), MTL::ResourceStorageModeShared));
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* encoder = cb->computeCommandEncoder();
  encode(encoder, xb.get(), ids.get(), probs.get(), h.get(), out.get(), M);
  encoder->endEncoding();
  commit_and_wait(cb, "TrellisMoE.forward");
  const half_t* o = static_cast<const half_t*>(out->contents());
  return {o, o + size_t(M) * hidden()};
}

}  // namespace metalsim::kernels::trellis
