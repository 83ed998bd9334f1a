#pragma once
// The metalsim kernels a forward pass encodes, each behind one function that binds its
// arguments in the kernel's order and dispatches it with its geometry: the document's encode
// helpers. Per-token steps bind the batch buffers at the token's byte offset (setBuffer's
// offset), as the document does.
#include <cstdint>
#include <map>
#include <string>

#include "host/model/argument_arena.h"
#include "host/model/buffer_slice.h"
#include "host/model/command_sink.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model {

// Where a helper encodes: the encoder or the indirect command buffer being recorded, and the
// arena its small arguments go to.
struct Encoding {
  CommandSink& commands;
  ArgumentArena& args;
};

class ModelKernels {
 public:
  // Makes every pipeline; throws std::runtime_error naming a kernel that is not linked.
  explicit ModelKernels(MTL::Device* device);

  // out [n, dim] = dequant(table)[tokens]; status [n] (1 for an id >= vocab).
  void embedding(const Encoding& e, MTL::Buffer* tokens, MTL::Buffer* table, MTL::Buffer* out,
                 MTL::Buffer* status, uint32_t n, uint32_t vocab, uint32_t dim) const;
  // Each of `rows` rows of `hidden` floats: x * rsqrt(mean(x^2) + eps) * weight.
  void rms_norm(const Encoding& e, BufferSlice in, MTL::Buffer* weight, BufferSlice out,
                uint32_t rows, uint32_t hidden, float eps) const;
  // out [batch, out_dim] (+)= in [batch, in_dim] x W^T, W in Q4_0: the multi-token mat-vec.
  void matvec(const Encoding& e, MTL::Buffer* weight, BufferSlice in, BufferSlice out,
              uint32_t out_dim, uint32_t in_dim, uint32_t batch, bool accumulate) const;
  // RoPE in place on q [seq, heads, head_dim] and k [seq, kv_heads, head_dim], positions from
  // `position`. Returns where its parameters went (set_rope_position changes them).
  BufferSlice rope(const Encoding& e, BufferSlice q, BufferSlice k, uint32_t seq, uint32_t heads,
                   uint32_t kv_heads, uint32_t head_dim, uint32_t position, float theta) const;
  // Copies `count` floats of K and of V (one token) into a cache slot.
  void kv_append(const Encoding& e, BufferSlice k, BufferSlice v, BufferSlice k_slot,
                 BufferSlice v_slot, uint32_t count) const;
  // One query token (heads x head_dim at q) against slots 0 .. kv_len - 1 of the cache.
  // Returns where its parameters went (repoint_attention changes them).
  BufferSlice attention(const Encoding& e, BufferSlice q, MTL::Buffer* k_cache,
                        MTL::Buffer* v_cache, BufferSlice out, uint32_t heads, uint32_t kv_heads,
                        uint32_t head_dim, uint32_t kv_len) const;
  // out = silu(gate) * up over `count` floats.
  void swiglu(const Encoding& e, BufferSlice gate, BufferSlice up, BufferSlice out,
              uint32_t count) const;
  // out[0] = the index of the largest of `cols` logits.
  void argmax(const Encoding& e, BufferSlice logits, MTL::Buffer* out, uint32_t cols) const;

  // A recorded program's position-dependent arguments, changed in place before a replay: the
  // RoPE position in rope()'s parameters; the cache slot a recorded kv_append writes; the
  // cache buffers and the length a recorded attention reads.
  static void set_rope_position(BufferSlice params, uint32_t position);
  static void repoint_kv_append(MTL::IndirectComputeCommand* command, BufferSlice k_slot,
                                BufferSlice v_slot);
  static void repoint_attention(MTL::IndirectComputeCommand* command, BufferSlice params,
                                MTL::Buffer* k_cache, MTL::Buffer* v_cache, uint32_t kv_len);

 private:
  void use(const Encoding& e, const char* kernel) const;
  std::map<std::string, NS::SharedPtr<MTL::ComputePipelineState>> pipelines_;
};

}  // namespace metalsim::model
