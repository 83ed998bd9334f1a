#include "kernels/trellis/trellis_linear.h"

#include <stdexcept>

#include "kernels/trellis/trellis_debug.h"

namespace metalsim::kernels::trellis {
namespace {

constexpr size_t kDocumentedPrefillBudget = 9216;  // section 5.3: 8192 + 512 + 512

}  // namespace

void require_length(const MTL::Buffer* b, size_t bytes, const std::string& what) {
  if (b == nullptr || b->length() < bytes)
    throw std::invalid_argument(what + " needs " + std::to_string(bytes) +
                                " bytes, the buffer has " + std::to_string(b ? b->length() : 0));
}

KernelGeometry geometry(TrellisKernel kernel) {
  switch (kernel) {
    case TrellisKernel::prefill: return {"gemm_trellis_packed", 64, 64};
    case TrellisKernel::decode: return {"gemm_trellis_packed_decode", 32, 128};
    case TrellisKernel::prefill_as_documented: return {"gemm_trellis_packed_as_documented", 64, 64};
    case TrellisKernel::automatic: break;
  }
  throw std::invalid_argument("geometry: choose a kernel first (choose_kernel(M))");
}

TrellisKernel choose_kernel(uint32_t M) {
  return M <= 16 ? TrellisKernel::decode : TrellisKernel::prefill;
}

NS::SharedPtr<MTL::ComputePipelineState> make_pipeline(MTL::Device* device,
                                                       const std::string& kernel) {
  auto library = NS::TransferPtr(device->newDefaultLibrary());
  auto function = NS::TransferPtr(library->newFunction(kernel.c_str()));
  if (!function) throw std::runtime_error("no kernel named '" + kernel + "' is linked");
  NS::Error* error = nullptr;
  auto pso = NS::TransferPtr(device->newComputePipelineState(function.get(), &error));
  if (!pso) throw std::runtime_error("pipeline for '" + kernel + "' failed");
  if (pso->staticThreadgroupMemoryLength() > device->maxThreadgroupMemoryLength())
    throw std::runtime_error(kernel + " declares " +
                             std::to_string(pso->staticThreadgroupMemoryLength()) +
                             " bytes of threadgroup memory, over the device's " +
                             std::to_string(device->maxThreadgroupMemoryLength()));
  return pso;
}

ThreadgroupBudget threadgroup_budget(MTL::Device* device, TrellisKernel kernel) {
  const KernelGeometry g = geometry(kernel);
  const size_t half_bytes = 2;
  const size_t computed = (2 * g.tile_m * 32 + 4 * 8 * 8 + 4 * 8 * 8) * half_bytes;
  const bool documented =
      kernel == TrellisKernel::prefill || kernel == TrellisKernel::prefill_as_documented;
  return {make_pipeline(device, g.name)->staticThreadgroupMemoryLength(), computed,
          documented ? kDocumentedPrefillBudget : 0, device->maxThreadgroupMemoryLength()};
}

// ------------------------------ TrellisLinear

TrellisLinear::TrellisLinear(MTL::Device* device, TrellisWeights weights)
    : device_(device), weights_(std::move(weights)) {
  check_shapes(weights_, "TrellisLinear");
  if (weights_.shape.experts != 1)
    throw std::invalid_argument("TrellisLinear: " + std::to_string(weights_.shape.experts) +
                                " experts; a linear layer has one (TrellisMoE takes several)");
  packed_ = make_buffer(device, weights_.packed);
  scales_ = make_buffer(device, weights_.scales);
  grid_ = make_buffer(device, weights_.grid);
  su_ = make_buffer(device, weights_.su);
  sv_ = make_buffer(device, weights_.sv);
}

MTL::ComputePipelineState* TrellisLinear::pipeline(TrellisKernel kernel) {
  auto& slot = pipelines_[kernel];
  if (!slot) slot = make_pipeline(device_, geometry(kernel).name);
  return slot.get();
}

void TrellisLinear::encode(MTL::ComputeCommandEncoder* encoder, MTL::Buffer* a, MTL::Buffer* c,
                           uint32_t M, TrellisKernel kernel) {
  const TrellisShape& s = weights_.shape;
  if (M == 0) throw std::invalid_argument("TrellisLinear: M = 0 rows");
  require_length(
      a, size_t(M) * s.K * sizeof(half_t),
      "TrellisLinear: A [M = " + std::to_string(M) + ", K = " + std::to_string(s.K) + "]");
  require_length(
      c, size_t(M) * s.N * sizeof(half_t),
      "TrellisLinear: C [M = " + std::to_string(M) + ", N = " + std::to_string(s.N) + "]");
  if (kernel == TrellisKernel::automatic) kernel = choose_kernel(M);
  const KernelGeometry g = geometry(kernel);
  MTL::ComputePipelineState* pso = pipeline(kernel);
  const MTL::Size grid((s.N + g.tile_n - 1) / g.tile_n, (M + g.tile_m - 1) / g.tile_m, 1);
  const MTL::Size threads(kThreadsPerThreadgroup, 1, 1);
  if (debug_enabled()) {
    DispatchInfo info{g.name,
                      M,
                      {uint32_t(grid.width), uint32_t(grid.height), 1},
                      {kThreadsPerThreadgroup, 1, 1},
                      pso->staticThreadgroupMemoryLength(),
                      g.tile_m == 64};
    debug_log(pre_dispatch_report(
        info, {static_cast<const half_t*>(a->contents()), size_t(M) * s.K}, weights_));
  }
  encoder->setComputePipelineState(pso);
  encoder->setBuffer(a, 0, 0);
  encoder->setBuffer(packed_.get(), 0, 1);
  encoder->setBuffer(scales_.get(), 0, 2);
  encoder->setBuffer(grid_.get(), 0, 3);
  encoder->setBuffer(su_.get(), 0, 4);
  encoder->setBuffer(sv_.get(), 0, 5);
  encoder->setBuffer(c, 0, 6);
  const uint32_t params[6] = {M, s.K, s.N, s.bits, s.group_size, s.n_levels};
  for (uint32_t i = 0; i < 6; ++i) encoder->setBytes(&params[i], sizeof(uint32_t), 7 + i);
  encoder->dispatchThreadgroups(grid, threads);
}

std::vector<half_t> TrellisLinear::forward(MTL::CommandQueue* queue, std::span<const half_t> x,
                                           TrellisKernel kernel) {
  const uint32_t K = in_features();
  if (x.size() % K != 0 || x.empty())
    throw std::invalid_argument("TrellisLinear.forward: " + std::to_string(x.size()) +
                                " values are not whole rows of in_features = " + std::to_string(K));
  const uint32_t M = uint32_t(x.size() / K);
  auto a =
      NS::TransferPtr(device_->newBuffer(x.data(), x.size_bytes(), MTL::ResourceStorageModeShared));
  auto c = NS::TransferPtr(device_->newBuffer(size_t(M) * out_features() * sizeof(half_t),
                                              MTL::ResourceStorageModeShared));
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* encoder = cb->computeCommandEncoder();
  encode(encoder, a.get(), c.get(), M, kernel);
  encoder->endEncoding();
  commit_and_wait(cb, "TrellisLinear.forward");
  const half_t* out = static_cast<const half_t*>(c->contents());
  return {out, out + size_t(M) * out_features()};
}

void commit_and_wait(MTL::CommandBuffer* cb, const std::string& who) {
  cb->commit();
  cb->waitUntilCompleted();
  if (cb->status() != MTL::CommandBufferStatusCompleted)
    throw std::runtime_error(who + ": " +
                             std::string(cb->error()->localizedDescription()->utf8String()));
}

}  // namespace metalsim::kernels::trellis
