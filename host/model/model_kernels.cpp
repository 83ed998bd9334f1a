#include "host/model/model_kernels.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace metalsim::model {
namespace {

// The kernels' parameter structs, field for field as the .metal files declare them.
struct EmbeddingParams {  // kernels/embedding/embedding.metal
  uint32_t tokens, vocab, dim;
  float scale;
};
struct RopeParams {  // kernels/elementwise/elementwise.metal
  uint32_t seq_len, q_heads, kv_heads, head_dim, position_offset;
  float theta_base;
};
struct DecodeParams {  // kernels/attention/attention.metal
  uint64_t q_strides[2], k_strides[3], v_strides[3], o_strides[2];
  uint32_t num_heads, num_kv_heads, kv_len, head_dim;
  float scale;
};

constexpr const char* kKernels[] = {"embedding_lookup_q4_0_float",
                                    "rms_norm_float",
                                    "multi_token_matvec_q4_0",
                                    "multi_token_matvec_q4_0_accumulate",
                                    "rope_float",
                                    "kv_append_float",
                                    "decode_attention_float",
                                    "swiglu_float",
                                    "argmax"};

constexpr uint32_t kMatvecThreads = 256;  // the document's 8 simdgroups, one row each
constexpr uint32_t kNormThreads = 32;     // one simdgroup per row, as the document's RMSNorm
constexpr uint32_t kArgmaxThreads = 256;

// The binding indices a recorded program changes between replays, as the kernels declare them.
constexpr uint32_t kAppendKeySlot = 2, kAppendValueSlot = 3;  // kv_append_float
constexpr uint32_t kAttentionKeys = 1, kAttentionValues = 2;  // decode_attention_float

void bind(const Encoding& e, BufferSlice s, uint32_t index) {
  e.commands.setBuffer(s.buffer, s.offset, index);
}
// A kernel's `constant T&` argument, through the call's argument arena; returns where it went.
template <class T>
BufferSlice bind_value(const Encoding& e, const T& value, uint32_t index) {
  const BufferSlice slice = e.args.put(value);
  bind(e, slice, index);
  return slice;
}
template <class T>
T& value_at(BufferSlice s) {
  return *reinterpret_cast<T*>(static_cast<char*>(s.buffer->contents()) + s.offset);
}
MTL::Size size1(uint64_t n) { return MTL::Size(n, 1, 1); }

}  // namespace

ModelKernels::ModelKernels(MTL::Device* device) {
  auto library = NS::TransferPtr(device->newDefaultLibrary());
  for (const char* name : kKernels) {
    auto fn = NS::TransferPtr(library->newFunction(name));
    NS::Error* error = nullptr;
    NS::SharedPtr<MTL::ComputePipelineState> pso;
    // Usable by indirect command buffers too: the captured path records the same pipelines.
    auto descriptor = NS::TransferPtr(MTL::ComputePipelineDescriptor::alloc()->init());
    descriptor->setComputeFunction(fn.get());
    descriptor->setSupportIndirectCommandBuffers(true);
    if (fn)
      pso = NS::TransferPtr(device->newComputePipelineState(
          descriptor.get(), MTL::PipelineOptionNone, nullptr, &error));
    if (!pso)
      throw std::runtime_error(
          std::string("model: kernel '") + name +
          "' is not linked (link metalsim_kernels, or its family's _metal library)");
    pipelines_[name] = pso;
  }
}

void ModelKernels::use(const Encoding& e, const char* kernel) const {
  e.commands.setComputePipelineState(pipelines_.at(kernel).get());
}

void ModelKernels::embedding(const Encoding& e, MTL::Buffer* tokens, MTL::Buffer* table,
                             MTL::Buffer* out, MTL::Buffer* status, uint32_t n, uint32_t vocab,
                             uint32_t dim) const {
  use(e, "embedding_lookup_q4_0_float");
  const EmbeddingParams p{n, vocab, dim, 1.0f};
  e.commands.setBuffer(tokens, 0, 0);
  e.commands.setBuffer(table, 0, 1);
  e.commands.setBuffer(out, 0, 2);
  e.commands.setBuffer(status, 0, 3);
  bind_value(e, p, 4);
  e.commands.dispatchThreads(MTL::Size(dim, n, 1), size1(std::min<uint32_t>(dim, 256)));
}

void ModelKernels::rms_norm(const Encoding& e, BufferSlice in, MTL::Buffer* weight, BufferSlice out,
                            uint32_t rows, uint32_t hidden, float eps) const {
  use(e, "rms_norm_float");
  bind(e, in, 0);
  e.commands.setBuffer(weight, 0, 1);
  bind(e, out, 2);
  bind_value(e, hidden, 3);
  bind_value(e, eps, 4);
  e.commands.setThreadgroupMemoryLength(kNormThreads * sizeof(float), 0);
  e.commands.dispatchThreadgroups(size1(rows), size1(kNormThreads));
}

void ModelKernels::matvec(const Encoding& e, MTL::Buffer* weight, BufferSlice in, BufferSlice out,
                          uint32_t out_dim, uint32_t in_dim, uint32_t batch,
                          bool accumulate) const {
  use(e, accumulate ? "multi_token_matvec_q4_0_accumulate" : "multi_token_matvec_q4_0");
  e.commands.setBuffer(weight, 0, 0);
  bind(e, in, 1);
  bind(e, out, 2);
  bind_value(e, out_dim, 3);
  bind_value(e, in_dim, 4);
  bind_value(e, batch, 5);
  const uint32_t rows_per_group = kMatvecThreads / 32;
  e.commands.dispatchThreadgroups(size1((out_dim + rows_per_group - 1) / rows_per_group),
                                  size1(kMatvecThreads));
}

BufferSlice ModelKernels::rope(const Encoding& e, BufferSlice q, BufferSlice k, uint32_t seq,
                               uint32_t heads, uint32_t kv_heads, uint32_t head_dim,
                               uint32_t position, float theta) const {
  use(e, "rope_float");
  const RopeParams p{seq, heads, kv_heads, head_dim, position, theta};
  bind(e, q, 0);
  bind(e, k, 1);
  const BufferSlice params = bind_value(e, p, 2);
  e.commands.dispatchThreads(MTL::Size(head_dim / 2, heads + kv_heads, seq),
                             size1(std::min<uint32_t>(head_dim / 2, 32)));
  return params;
}

void ModelKernels::kv_append(const Encoding& e, BufferSlice k, BufferSlice v, BufferSlice k_slot,
                             BufferSlice v_slot, uint32_t count) const {
  use(e, "kv_append_float");
  bind(e, k, 0);
  bind(e, v, 1);
  bind(e, k_slot, kAppendKeySlot);
  bind(e, v_slot, kAppendValueSlot);
  bind_value(e, count, 4);
  e.commands.dispatchThreads(size1(count), size1(std::min<uint32_t>(count, 256)));
}

BufferSlice ModelKernels::attention(const Encoding& e, BufferSlice q, MTL::Buffer* k_cache,
                                    MTL::Buffer* v_cache, BufferSlice out, uint32_t heads,
                                    uint32_t kv_heads, uint32_t head_dim, uint32_t kv_len) const {
  use(e, "decode_attention_float");
  const uint64_t row = uint64_t(kv_heads) * head_dim;  // a cache slot: [kv_heads, head_dim]
  DecodeParams p{};                                    // one query: batch strides 0
  p.q_strides[1] = p.o_strides[1] = head_dim;
  p.k_strides[1] = p.v_strides[1] = head_dim;  // kv head
  p.k_strides[2] = p.v_strides[2] = row;       // slot
  p.num_heads = heads;
  p.num_kv_heads = kv_heads;
  p.kv_len = kv_len;
  p.head_dim = head_dim;
  p.scale = float(1.0 / std::sqrt(double(head_dim)));
  bind(e, q, 0);
  e.commands.setBuffer(k_cache, 0, kAttentionKeys);
  e.commands.setBuffer(v_cache, 0, kAttentionValues);
  bind(e, out, 3);
  const BufferSlice params = bind_value(e, p, 4);
  e.commands.dispatchThreadgroups(MTL::Size(heads, 1, 1), size1(128));
  return params;
}

void ModelKernels::swiglu(const Encoding& e, BufferSlice gate, BufferSlice up, BufferSlice out,
                          uint32_t count) const {
  use(e, "swiglu_float");
  bind(e, gate, 0);
  bind(e, up, 1);
  bind(e, out, 2);
  bind_value(e, count, 3);
  e.commands.dispatchThreads(size1(count), size1(std::min<uint32_t>(count, 256)));
}

void ModelKernels::argmax(const Encoding& e, BufferSlice logits, MTL::Buffer* out,
                          uint32_t cols) const {
  use(e, "argmax");
  const uint32_t rows = 1;
  bind(e, logits, 0);
  e.commands.setBuffer(out, 0, 1);
  bind_value(e, rows, 2);
  bind_value(e, cols, 3);
  e.commands.setThreadgroupMemoryLength(kArgmaxThreads * sizeof(float), 0);
  e.commands.setThreadgroupMemoryLength(kArgmaxThreads * sizeof(uint32_t), 1);
  e.commands.dispatchThreadgroups(size1(1), size1(kArgmaxThreads));
}

void ModelKernels::set_rope_position(BufferSlice params, uint32_t position) {
  value_at<RopeParams>(params).position_offset = position;
}

void ModelKernels::repoint_kv_append(MTL::IndirectComputeCommand* command, BufferSlice k_slot,
                                     BufferSlice v_slot) {
  command->setKernelBuffer(k_slot.buffer, k_slot.offset, kAppendKeySlot);
  command->setKernelBuffer(v_slot.buffer, v_slot.offset, kAppendValueSlot);
}

void ModelKernels::repoint_attention(MTL::IndirectComputeCommand* command, BufferSlice params,
                                     MTL::Buffer* k_cache, MTL::Buffer* v_cache, uint32_t kv_len) {
  command->setKernelBuffer(k_cache, 0, kAttentionKeys);
  command->setKernelBuffer(v_cache, 0, kAttentionValues);
  value_at<DecodeParams>(params).kv_len = kv_len;
}

}  // namespace metalsim::model
