#pragma once
// TrellisLinear: the host dispatch of the trellis GEMMs, as the Trellis document's
// TrellisLinear.forward and dispatch.py do it (sections 2.1 and 2.2). Weights are checked
// (section 5.2) and uploaded once; forward picks the decode kernel for M <= 16 and the prefill
// kernel otherwise; grid (ceil(N / TILE_N), ceil(M / TILE_M)) threadgroups of 128 threads; M, K,
// N, bits, group_size and n_levels go in uint32 constant buffers. With METALSIM_DEBUG=1 each
// dispatch logs its statistics first (trellis_debug.h).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "kernels/trellis/trellis_format.h"
#include "metalsim/Metal.hpp"

namespace metalsim::kernels::trellis {

using half_t = _Float16;

enum class TrellisKernel { automatic, prefill, decode, prefill_as_documented };

// A kernel's name and output tile.
struct KernelGeometry {
  const char* name;
  uint32_t tile_m, tile_n;
};
KernelGeometry geometry(TrellisKernel kernel);  // automatic: throws
TrellisKernel choose_kernel(uint32_t M);        // M <= 16: decode, else prefill

inline constexpr uint32_t kThreadsPerThreadgroup = 128;  // 4 simdgroups of 32

// Threadgroup memory of one kernel, three ways.
struct ThreadgroupBudget {
  size_t declared;  // what the kernel declares (the pipeline's staticThreadgroupMemoryLength)
  size_t
      computed;  // A_tiles[2][TILE_M][32] + B_staging[4][8][8] + epilogue_staging[4][8][8], halves
  size_t documented;  // section 5.3's figure (the prefill kernel only; 0 otherwise)
  size_t limit;       // the device's maxThreadgroupMemoryLength
};
ThreadgroupBudget threadgroup_budget(MTL::Device* device, TrellisKernel kernel);

// A shared buffer holding a copy of `v`.
template <class T>
NS::SharedPtr<MTL::Buffer> make_buffer(MTL::Device* device, const std::vector<T>& v) {
  return NS::TransferPtr(
      device->newBuffer(v.data(), v.size() * sizeof(T), MTL::ResourceStorageModeShared));
}

// Throws std::invalid_argument("<what> needs N bytes, the buffer has M") when `b` is shorter.
void require_length(const MTL::Buffer* b, size_t bytes, const std::string& what);

// A pipeline of a linked kernel; throws naming the kernel when it is missing, or when its
// threadgroup memory exceeds the device's limit.
NS::SharedPtr<MTL::ComputePipelineState> make_pipeline(MTL::Device* device,
                                                       const std::string& kernel);

class TrellisLinear {
 public:
  // Throws std::invalid_argument (section 5.2's checks) before anything is uploaded.
  TrellisLinear(MTL::Device* device, TrellisWeights weights);

  uint32_t in_features() const { return weights_.shape.K; }
  uint32_t out_features() const { return weights_.shape.N; }
  const TrellisWeights& weights() const { return weights_; }

  // Encodes C [M, N] = A [M, K] x W; `kernel` automatic chooses by M as forward() does. Throws
  // when a buffer is shorter than M rows need.
  void encode(MTL::ComputeCommandEncoder* encoder, MTL::Buffer* a, MTL::Buffer* c, uint32_t M,
              TrellisKernel kernel = TrellisKernel::automatic);

  // x holds M rows of in_features() halves (x.view(-1, in_features)); runs one command buffer
  // of `queue` and returns C. Throws std::runtime_error with the command buffer's error.
  std::vector<half_t> forward(MTL::CommandQueue* queue, std::span<const half_t> x,
                              TrellisKernel kernel = TrellisKernel::automatic);

 private:
  MTL::ComputePipelineState* pipeline(TrellisKernel kernel);

  MTL::Device* device_;
  TrellisWeights weights_;
  NS::SharedPtr<MTL::Buffer> packed_, scales_, grid_, su_, sv_;
  std::map<TrellisKernel, NS::SharedPtr<MTL::ComputePipelineState>> pipelines_;
};

// What forward() does after encoding, for both layers: commits `cb`, waits, and throws
// std::runtime_error("<who>: <the command buffer's error>") unless it completed.
void commit_and_wait(MTL::CommandBuffer* cb, const std::string& who);

}  // namespace metalsim::kernels::trellis
