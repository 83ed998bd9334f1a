#include "host/model/batch_buffers.h"

namespace metalsim::model {
namespace {

NS::SharedPtr<MTL::Buffer> floats(MTL::Device* device, uint64_t count, const char* label) {
  auto b =
      NS::TransferPtr(device->newBuffer(count * sizeof(float), MTL::ResourceStorageModeShared));
  b->setLabel(NS::String::string(label, NS::UTF8StringEncoding));
  return b;
}

}  // namespace

BatchBuffers::BatchBuffers(MTL::Device* device, const ModelConfig& c, uint32_t n) : tokens(n) {
  token_ids =
      NS::TransferPtr(device->newBuffer(n * sizeof(uint32_t), MTL::ResourceStorageModeShared));
  status = NS::TransferPtr(device->newBuffer(n * sizeof(uint32_t), MTL::ResourceStorageModeShared));
  hidden_a = floats(device, uint64_t(n) * c.hidden, "batch_hidden_a");
  hidden_b = floats(device, uint64_t(n) * c.hidden, "batch_hidden_b");
  q = floats(device, uint64_t(n) * c.q_dim(), "batch_q");
  k = floats(device, uint64_t(n) * c.kv_dim(), "batch_k");
  v = floats(device, uint64_t(n) * c.kv_dim(), "batch_v");
  attn_out = floats(device, uint64_t(n) * c.q_dim(), "batch_attn_out");
  gate = floats(device, uint64_t(n) * c.intermediate, "batch_gate");
  up = floats(device, uint64_t(n) * c.intermediate, "batch_up");
  silu = floats(device, uint64_t(n) * c.intermediate, "batch_silu");
}

uint64_t BatchBuffers::float_bytes(const ModelConfig& c, uint32_t n) {
  return uint64_t(n) *
         (2ull * c.hidden + 2ull * c.q_dim() + 2ull * c.kv_dim() + 3ull * c.intermediate) * 4;
}

}  // namespace metalsim::model
